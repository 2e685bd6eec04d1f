package kafka

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"strings"

	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/sparkerr"
)

// kafkaStoreLocations are the Kafka options naming files the client reads.
var kafkaStoreLocations = []string{"kafka.ssl.truststore.location", "kafka.ssl.keystore.location"}

// CheckKafkaStoreFiles checks the files a Kafka source's or sink's options name (the PEM trust
// and key stores) for reading with the file-access policy and returns the options with their
// resolved paths (a copy; keys case-insensitive, as the other options).
func CheckKafkaStoreFiles(files *fileaccess.Policy, options map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(options))
	for k, v := range options {
		out[k] = v
		for _, loc := range kafkaStoreLocations {
			if strings.EqualFold(k, loc) && strings.TrimSpace(v) != "" {
				r, err := files.CheckRead(strings.TrimSpace(v))
				if err != nil {
					return nil, err
				}
				out[k] = r
			}
		}
	}
	return out, nil
}

// kafkaTLSConfig builds the TLS configuration of security.protocol SSL / SASL_SSL from Kafka's
// ssl.* options, PEM stores only:
//
//   - trust: ssl.truststore.certificates (PEM text) or ssl.truststore.location (a PEM file);
//     neither: the system's roots (as Kafka falls back to the JVM's trust store);
//   - client key: ssl.keystore.certificate.chain + ssl.keystore.key (PEM text) or
//     ssl.keystore.location (a PEM file holding the key and its certificate chain);
//     ssl.key.password for encrypted keys is not supported;
//   - ssl.endpoint.identification.algorithm: https (default) checks the broker's host name; empty
//     checks the certificate chain only;
//   - ssl.protocol / ssl.enabled.protocols: TLSv1.2 or TLSv1.3 as the lowest version.
//
// ssl.truststore.type / ssl.keystore.type JKS or PKCS12 are IllegalArgumentException asking for
// PEM; a location without a type is read as PEM when the file is PEM.
func kafkaTLSConfig(params map[string]string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	roots, err := kafkaTrustStore(params)
	if err != nil {
		return nil, err
	}
	cfg.RootCAs = roots
	cert, err := kafkaKeyStore(params)
	if err != nil {
		return nil, err
	}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	if v, ok := params["ssl.enabled.protocols"]; ok {
		lowest := uint16(0)
		for _, p := range strings.Split(v, ",") {
			ver, err := kafkaTLSVersion("ssl.enabled.protocols", strings.TrimSpace(p))
			if err != nil {
				return nil, err
			}
			if lowest == 0 || ver < lowest {
				lowest = ver
			}
		}
		if lowest != 0 {
			cfg.MinVersion = lowest
		}
	} else if v, ok := params["ssl.protocol"]; ok && strings.TrimSpace(v) != "" && !strings.EqualFold(strings.TrimSpace(v), "TLS") {
		ver, err := kafkaTLSVersion("ssl.protocol", strings.TrimSpace(v))
		if err != nil {
			return nil, err
		}
		cfg.MinVersion = ver
	}
	if alg, ok := params["ssl.endpoint.identification.algorithm"]; ok && strings.TrimSpace(alg) == "" {
		// Verify the chain against the roots but not the host name, as Kafka does with
		// endpoint identification disabled.
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return sparkerr.New("javax.net.ssl.SSLHandshakeException", "", "", "the Kafka broker sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		}
	} else if ok && !strings.EqualFold(strings.TrimSpace(alg), "https") {
		return nil, sparkerr.IllegalArgument("Kafka option ssl.endpoint.identification.algorithm=%s is not supported "+
			"(use https, or an empty value to disable host name verification)", alg)
	}
	return cfg, nil
}

func kafkaTLSVersion(key, v string) (uint16, error) {
	switch strings.ToUpper(v) {
	case "TLSV1.2":
		return tls.VersionTLS12, nil
	case "TLSV1.3":
		return tls.VersionTLS13, nil
	}
	return 0, sparkerr.IllegalArgument("Kafka option %s=%s is not supported (Weir's Kafka client speaks TLSv1.2 and TLSv1.3)", key, v)
}

// kafkaStoreType checks a store type option: PEM, or unset with a PEM file (file nil: not read
// yet, checks the explicit type only).
func kafkaStoreType(params map[string]string, store string, file []byte) error {
	typ := strings.ToUpper(strings.TrimSpace(params["ssl."+store+".type"]))
	switch {
	case typ == "PEM":
		return nil
	case typ == "" && (file == nil || bytes.Contains(file, []byte("-----BEGIN "))):
		return nil
	case typ == "":
		typ = "JKS"
	}
	return sparkerr.IllegalArgument("Kafka option ssl.%s.type=%s is not supported: Weir's Kafka client reads PEM %ss "+
		"only. Convert the store to PEM (e.g. keytool -exportcert -rfc, or openssl pkcs12 -nodes) and set "+
		"kafka.ssl.%s.type=PEM with kafka.ssl.%s.location (a PEM file)", store, typ, store, store, store)
}

// kafkaTrustStore reads the trusted certificates; nil means the system's roots.
func kafkaTrustStore(params map[string]string) (*x509.CertPool, error) {
	if err := kafkaStoreType(params, "truststore", nil); err != nil {
		return nil, err
	}
	text := params["ssl.truststore.certificates"]
	var file []byte
	if loc := strings.TrimSpace(params["ssl.truststore.location"]); loc != "" && strings.TrimSpace(text) == "" {
		var err error
		if file, err = os.ReadFile(loc); err != nil {
			return nil, kafkaStoreError("truststore", loc, err)
		}
		text = string(file)
	}
	if err := kafkaStoreType(params, "truststore", file); err != nil {
		return nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(text)) {
		return nil, sparkerr.IllegalArgument("The Kafka PEM truststore (kafka.ssl.truststore.*) holds no certificate")
	}
	return pool, nil
}

// kafkaKeyStore reads the client certificate and key; nil when none is configured.
func kafkaKeyStore(params map[string]string) (*tls.Certificate, error) {
	if err := kafkaStoreType(params, "keystore", nil); err != nil {
		return nil, err
	}
	chain, key := params["ssl.keystore.certificate.chain"], params["ssl.keystore.key"]
	var file []byte
	if loc := strings.TrimSpace(params["ssl.keystore.location"]); loc != "" && strings.TrimSpace(chain) == "" {
		var err error
		if file, err = os.ReadFile(loc); err != nil {
			return nil, kafkaStoreError("keystore", loc, err)
		}
		chain, key = string(file), string(file)
	}
	if err := kafkaStoreType(params, "keystore", file); err != nil {
		return nil, err
	}
	if strings.TrimSpace(chain) == "" && strings.TrimSpace(key) == "" {
		return nil, nil
	}
	if block, _ := pem.Decode([]byte(key)); block != nil && block.Type == "ENCRYPTED PRIVATE KEY" ||
		strings.Contains(key, "Proc-Type: 4,ENCRYPTED") {
		return nil, sparkerr.Unsupported("encrypted private keys in the Kafka PEM keystore (kafka.ssl.key.password) are " +
			"not supported: give the key unencrypted")
	}
	cert, err := tls.X509KeyPair([]byte(chain), []byte(key))
	if err != nil {
		return nil, sparkerr.IllegalArgument("Invalid Kafka PEM keystore (kafka.ssl.keystore.*): %v", err).Wrap(err)
	}
	return &cert, nil
}

func kafkaStoreError(store, loc string, err error) *sparkerr.Error {
	return sparkerr.Newf(kafkaConfigException, "", "", "Failed to load SSL %s %s: %v", store, loc, err).Wrap(err)
}
