package kafka

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/sparkerr"
)

func TestKafkaJAASParse(t *testing.T) {
	m, err := parseKafkaJAAS(`org.apache.kafka.common.security.plain.PlainLoginModule required
		username="alice" /* comment */ password='p\"w;d' // trailing
		serviceName=kafka.svc;`)
	if err != nil {
		t.Fatal(err)
	}
	if m.class != "org.apache.kafka.common.security.plain.PlainLoginModule" || m.flag != "required" ||
		m.options["username"] != "alice" || m.options["password"] != `p"w;d` || m.options["serviceName"] != "kafka.svc" {
		t.Fatalf("parsed %+v", m)
	}
	for _, tc := range []struct{ config, msg string }{
		{`Mod`, "Login module control flag not specified in JAAS config"},
		{`Mod mandatory;`, "Invalid login module control flag 'mandatory' in JAAS config"},
		{`Mod required username;`, "Value not specified for key 'username' in JAAS config"},
		{`Mod required username=;`, "Value not specified for key 'username' in JAAS config"},
		{`Mod required username="a"`, "JAAS config entry not terminated by semi-colon"},
		{`  `, "JAAS config property does not contain any login modules"},
		{`A required; B optional;`, "JAAS config property contains 2 login modules, should be 1 module"},
	} {
		_, err := parseKafkaJAAS(tc.config)
		se, ok := sparkerr.As(err)
		if !ok || se.JavaClass != sparkerr.IllegalArgumentException || se.Message != tc.msg {
			t.Errorf("%q: got %v, want IllegalArgumentException %q", tc.config, err, tc.msg)
		}
	}
}

func TestKafkaClientOptsErrors(t *testing.T) {
	dir := t.TempDir()
	jks := filepath.Join(dir, "trust.jks")
	if err := os.WriteFile(jks, []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2}, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts      map[string]string
		javaClass string
		contains  string
	}{
		{map[string]string{"kafka.security.protocol": "SASL_KERBEROS"}, kafkaConfigException,
			"Invalid value SASL_KERBEROS for configuration security.protocol: String must be one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"},
		{map[string]string{"kafka.security.protocol": "SASL_PLAINTEXT"}, sparkerr.UnsupportedOperation,
			"sasl.mechanism=GSSAPI is not supported"},
		{map[string]string{"kafka.security.protocol": "SASL_PLAINTEXT", "kafka.sasl.mechanism": "PLAIN"},
			sparkerr.IllegalArgumentException, "Could not find a 'KafkaClient' entry in the JAAS configuration"},
		{map[string]string{"kafka.security.protocol": "SASL_SSL", "kafka.sasl.mechanism": "SCRAM-SHA-512",
			"kafka.sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\";"},
			sparkerr.IllegalArgumentException, "must give username and password"},
		{map[string]string{"kafka.security.protocol": "SSL", "kafka.ssl.truststore.location": jks}, sparkerr.IllegalArgumentException,
			"Kafka option ssl.truststore.type=JKS is not supported: Weir's Kafka client reads PEM truststores only"},
		{map[string]string{"kafka.security.protocol": "SSL", "kafka.ssl.truststore.type": "PKCS12",
			"kafka.ssl.truststore.location": jks}, sparkerr.IllegalArgumentException, "ssl.truststore.type=PKCS12 is not supported"},
		{map[string]string{"kafka.security.protocol": "SSL", "kafka.ssl.keystore.type": "JKS",
			"kafka.ssl.keystore.location": jks}, sparkerr.IllegalArgumentException, "ssl.keystore.type=JKS is not supported"},
		{map[string]string{"kafka.security.protocol": "SSL", "kafka.ssl.truststore.type": "PEM",
			"kafka.ssl.truststore.location": filepath.Join(dir, "missing.pem")}, kafkaConfigException, "Failed to load SSL truststore"},
		{map[string]string{"kafka.request.timeout.ms": "soon"}, kafkaConfigException,
			"Invalid value soon for configuration request.timeout.ms: Not a number of type LONG"},
		{map[string]string{"kafka.compression.type": "brotli"}, kafkaConfigException, "configuration compression.type"},
		{map[string]string{"kafka.isolation.level": "dirty"}, kafkaConfigException, "configuration isolation.level"},
	} {
		_, err := KafkaClientOpts(tc.opts)
		se, ok := sparkerr.As(err)
		if !ok || se.JavaClass != tc.javaClass || !strings.Contains(se.Message, tc.contains) {
			t.Errorf("%v: got %v, want %s containing %q", tc.opts, err, tc.javaClass, tc.contains)
		}
	}
	if se := KafkaSecurityError(fmt.Errorf("listing: %w", kerr.SaslAuthenticationFailed), []string{"h:1"}); se == nil ||
		se.JavaClass != "org.apache.kafka.common.errors.SaslAuthenticationException" ||
		!strings.HasPrefix(se.Message, "SASL authentication with kafka.bootstrap.servers h:1 failed") {
		t.Fatalf("SASL failure classified as %v", se)
	}
	if se := KafkaSecurityError(context.DeadlineExceeded, nil); se != nil {
		t.Fatalf("a timeout classified as %v", se)
	}
	// Unknown Kafka options are ignored, as Kafka ignores them; options without the prefix are not Kafka's.
	opts, err := KafkaClientOpts(map[string]string{"kafka.bootstrap.servers": "h:1", "kafka.some.future.option": "x",
		"subscribe": "t", "KAFKA.client.id": "me"})
	if err != nil || len(opts) != 2 {
		t.Fatalf("got %d options, %v; want seed brokers and client id", len(opts), err)
	}
}

// pingKafka lists the cluster's topics with a client built from options.
func pingKafka(t *testing.T, options map[string]string) error {
	t.Helper()
	opts, err := KafkaClientOpts(options)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append(opts, kgo.RetryTimeout(2*time.Second))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return cl.Ping(ctx)
}

func TestKafkaClientSASL(t *testing.T) {
	for _, mech := range []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"} {
		t.Run(mech, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser(mech, "weir", "weir-secret"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			module := "org.apache.kafka.common.security.scram.ScramLoginModule"
			if mech == "PLAIN" {
				module = "org.apache.kafka.common.security.plain.PlainLoginModule"
			}
			options := func(pass string) map[string]string {
				return map[string]string{"kafka.bootstrap.servers": c.ListenAddrs()[0],
					"kafka.security.protocol": "SASL_PLAINTEXT", "kafka.sasl.mechanism": mech,
					"kafka.sasl.jaas.config": module + ` required username="weir" password="` + pass + `";`}
			}
			if err := pingKafka(t, options("weir-secret")); err != nil {
				t.Fatalf("right password: %v", err)
			}
			// kfake drops the connection (a real broker answers SASL_AUTHENTICATION_FAILED,
			// tests/e2e/test_kafka_source.py).
			if err := pingKafka(t, options("wrong")); err == nil {
				t.Fatal("wrong password: the broker accepted it")
			}
		})
	}
}

// testCA makes a CA and a server certificate for 127.0.0.1 signed by it, as PEM.
func testCA(t *testing.T) (caPEM []byte, server tls.Certificate) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "weir test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "broker"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"broker.test"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalPKCS8PrivateKey(key)
	server, err = tls.X509KeyPair(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), server
}

func TestKafkaClientTLS(t *testing.T) {
	caPEM, server := testCA(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.TLS(&tls.Config{Certificates: []tls.Certificate{server}}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := c.ListenAddrs()[0]
	trust := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(trust, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"kafka.bootstrap.servers": addr, "kafka.security.protocol": "SSL"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	if err := pingKafka(t, with("kafka.ssl.truststore.type", "PEM", "kafka.ssl.truststore.location", trust)); err != nil {
		t.Fatalf("PEM truststore file: %v", err)
	}
	if err := pingKafka(t, with("kafka.ssl.truststore.location", trust)); err != nil {
		t.Fatalf("PEM truststore file without a type: %v", err)
	}
	if err := pingKafka(t, with("kafka.ssl.truststore.type", "PEM", "kafka.ssl.truststore.certificates", string(caPEM))); err != nil {
		t.Fatalf("PEM truststore certificates: %v", err)
	}
	err = pingKafka(t, base)
	if err == nil {
		t.Fatal("the system roots trusted the test CA")
	}
	if se := KafkaSecurityError(err, []string{addr}); se == nil ||
		se.JavaClass != "org.apache.kafka.common.errors.SslAuthenticationException" {
		t.Fatalf("untrusted certificate error %v classified as %v", err, se)
	}
	// Through a host name the certificate does not name: refused unless endpoint
	// identification is off (the chain is still checked).
	_, port, _ := net.SplitHostPort(addr)
	byName := with("kafka.bootstrap.servers", "localhost:"+port, "kafka.ssl.truststore.location", trust)
	if err := pingKafka(t, byName); err == nil {
		t.Fatal("host name verification let localhost pass for a certificate of 127.0.0.1")
	}
	byName["kafka.ssl.endpoint.identification.algorithm"] = ""
	if err := pingKafka(t, byName); err != nil {
		t.Fatalf("endpoint identification off: %v", err)
	}
}

// batch.size is a target, as in Java Kafka: a record larger than it goes in a batch of its own;
// max.request.size is the cap on a record.
func TestKafkaClientBatchSizeIsNotACap(t *testing.T) {
	addr := newFakeKafka(t, 1, "big")
	produce := func(options map[string]string, size int) error {
		t.Helper()
		opts, err := KafkaClientOpts(options)
		if err != nil {
			t.Fatal(err)
		}
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return cl.ProduceSync(ctx, &kgo.Record{Topic: "big", Value: []byte(strings.Repeat("x", size))}).FirstErr()
	}
	if err := produce(map[string]string{"kafka.batch.size": "16384"}, 100_000); err != nil {
		t.Fatalf("a 100 kB record with batch.size=16384: %v", err)
	}
	if err := produce(map[string]string{"kafka.batch.size": "100", "kafka.linger.ms": "5"}, 5_000); err != nil {
		t.Fatalf("a 5 kB record with batch.size=100: %v", err)
	}
	small := map[string]string{"kafka.batch.size": "16384", "kafka.max.request.size": "4096"}
	if err := produce(small, 2_000); err != nil {
		t.Fatalf("a 2 kB record under max.request.size=4096: %v", err)
	}
	if err := produce(small, 10_000); !errors.Is(err, kerr.MessageTooLarge) {
		t.Fatalf("a 10 kB record over max.request.size=4096: got %v, want MESSAGE_TOO_LARGE", err)
	}
	if _, err := KafkaClientOpts(map[string]string{"kafka.batch.size": "big"}); err == nil ||
		!strings.Contains(err.Error(), "Invalid value big for configuration batch.size: Not a number of type INT") {
		t.Fatalf("batch.size=big: %v", err)
	}
}
