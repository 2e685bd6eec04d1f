package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	"github.com/weirhq/weir/sparkerr"
)

// Translation of a Kafka data source's or sink's `kafka.*` options (the Kafka client
// configuration, Kafka's own names) into franz-go client options. The Kafka source and the
// Kafka sink share it.

// kafkaConfigException is Kafka's exception for an invalid client configuration value.
const kafkaConfigException = "org.apache.kafka.common.config.ConfigException"

// KafkaParams returns the Kafka client configuration among a data source's options: the
// options named kafka.<name> (the prefix matched case-insensitively), keyed by <name>.
func KafkaParams(options map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range options {
		if len(k) > len("kafka.") && strings.EqualFold(k[:len("kafka.")], "kafka.") {
			out[strings.ToLower(k[len("kafka."):])] = v
		}
	}
	return out
}

// KafkaClientOpts translates the kafka.* options among a data source's or sink's options into
// franz-go client options:
//
//   - bootstrap.servers (seed brokers, when given; callers check that it is given with their
//     own message), client.id;
//   - security.protocol PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL; sasl.mechanism PLAIN,
//     SCRAM-SHA-256 or SCRAM-SHA-512 with the credentials of sasl.jaas.config (parsed like
//     Kafka's JaasConfig); TLS from PEM trust and key stores (tls.go);
//   - timeouts and sizes with a kgo equivalent: request.timeout.ms, socket.connection.setup.timeout.ms,
//     default.api.timeout.ms, retry.backoff.ms, metadata.max.age.ms, connections.max.idle.ms,
//     fetch.min.bytes, fetch.max.bytes, max.partition.fetch.bytes, fetch.max.wait.ms,
//     isolation.level, acks, linger.ms, compression.type, max.request.size (the cap on a
//     record and its batch), enable.idempotence, retries, max.in.flight.requests.per.connection,
//     delivery.timeout.ms, transaction.timeout.ms; batch.size is validated only (Java's target
//     batch size, not a cap: kgo fills batches up to max.request.size).
//
// Other Kafka options are ignored, as the Kafka client ignores (and warns about) options it does
// not know. Options a caller appends after these take precedence. Malformed values are
// Kafka's ConfigException; unsupported security settings are IllegalArgumentException or
// UnsupportedOperationException naming the setting.
func KafkaClientOpts(options map[string]string) ([]kgo.Opt, error) {
	return kafkaClientOpts(KafkaParams(options))
}

// kafkaClientOpts is KafkaClientOpts over the Kafka configuration (names without "kafka.").
func kafkaClientOpts(params map[string]string) ([]kgo.Opt, error) {
	var opts []kgo.Opt
	if servers := kafkaServers(params["bootstrap.servers"]); len(servers) > 0 {
		opts = append(opts, kgo.SeedBrokers(servers...))
	}
	if id, ok := params["client.id"]; ok && id != "" {
		opts = append(opts, kgo.ClientID(id))
	}
	sec, err := kafkaSecurityOpts(params)
	if err != nil {
		return nil, err
	}
	opts = append(opts, sec...)
	tuned, err := kafkaTuningOpts(params)
	if err != nil {
		return nil, err
	}
	return append(opts, tuned...), nil
}

// kafkaServers splits a bootstrap.servers list.
func kafkaServers(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// kafkaSecurityOpts translates security.protocol and its SASL and TLS settings.
func kafkaSecurityOpts(params map[string]string) ([]kgo.Opt, error) {
	protocol := strings.ToUpper(strings.TrimSpace(params["security.protocol"]))
	if protocol == "" {
		protocol = "PLAINTEXT"
	}
	var useSASL, useTLS bool
	switch protocol {
	case "PLAINTEXT":
	case "SSL":
		useTLS = true
	case "SASL_PLAINTEXT":
		useSASL = true
	case "SASL_SSL":
		useSASL, useTLS = true, true
	default:
		return nil, sparkerr.Newf(kafkaConfigException, "", "",
			"Invalid value %s for configuration security.protocol: String must be one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL",
			params["security.protocol"])
	}
	var opts []kgo.Opt
	if useSASL {
		m, err := kafkaSASLMechanism(params)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	if useTLS {
		cfg, err := kafkaTLSConfig(params)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	return opts, nil
}

// kafkaSASLMechanism builds the SASL mechanism of sasl.mechanism (Kafka's default GSSAPI,
// Kerberos, is not available) with the credentials of sasl.jaas.config.
func kafkaSASLMechanism(params map[string]string) (sasl.Mechanism, error) {
	mech := strings.TrimSpace(params["sasl.mechanism"])
	if mech == "" {
		mech = "GSSAPI"
	}
	switch mech {
	case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
	default:
		return nil, sparkerr.Unsupported("Kafka option sasl.mechanism=%s is not supported: Weir's Kafka client "+
			"authenticates with PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (set kafka.sasl.mechanism)", mech)
	}
	jaas, ok := params["sasl.jaas.config"]
	if !ok || strings.TrimSpace(jaas) == "" {
		return nil, sparkerr.IllegalArgument("Could not find a 'KafkaClient' entry in the JAAS configuration. " +
			"Set the Kafka option kafka.sasl.jaas.config, e.g. org.apache.kafka.common.security.plain.PlainLoginModule " +
			"required username=\"user\" password=\"secret\";")
	}
	module, err := parseKafkaJAAS(jaas)
	if err != nil {
		return nil, err
	}
	user, hasUser := module.options["username"]
	pass, hasPass := module.options["password"]
	if !hasUser || !hasPass {
		return nil, sparkerr.IllegalArgument("sasl.jaas.config for SASL mechanism %s must give username and password "+
			"(login module %s has options %s)", mech, module.class, module.optionNames())
	}
	switch mech {
	case "PLAIN":
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: pass, IsToken: module.options["tokenauth"] == "true"}.AsSha256Mechanism(), nil
	default:
		return scram.Auth{User: user, Pass: pass, IsToken: module.options["tokenauth"] == "true"}.AsSha512Mechanism(), nil
	}
}

// kafkaTuningOpts translates the timeouts, sizes and producer settings with a kgo equivalent.
func kafkaTuningOpts(params map[string]string) ([]kgo.Opt, error) {
	var opts []kgo.Opt
	durations := []struct {
		key string
		opt func(time.Duration) kgo.Opt
	}{
		{"request.timeout.ms", kgo.RequestTimeoutOverhead},
		{"socket.connection.setup.timeout.ms", kgo.DialTimeout},
		{"default.api.timeout.ms", kgo.RetryTimeout},
		{"metadata.max.age.ms", kgo.MetadataMaxAge},
		{"connections.max.idle.ms", kgo.ConnIdleTimeout},
		{"retry.backoff.ms", func(d time.Duration) kgo.Opt {
			return kgo.RetryBackoffFn(func(int) time.Duration { return d })
		}},
		{"fetch.max.wait.ms", func(d time.Duration) kgo.Opt { return kgo.FetchMaxWait(d) }},
		{"linger.ms", func(d time.Duration) kgo.Opt { return kgo.ProducerLinger(d) }},
		{"delivery.timeout.ms", func(d time.Duration) kgo.Opt { return kgo.RecordDeliveryTimeout(d) }},
		{"transaction.timeout.ms", func(d time.Duration) kgo.Opt { return kgo.TransactionTimeout(d) }},
	}
	for _, d := range durations {
		if v, ok := params[d.key]; ok {
			ms, err := kafkaConfigInt(d.key, v, 64)
			if err != nil {
				return nil, err
			}
			if ms > 0 {
				opts = append(opts, d.opt(time.Duration(ms)*time.Millisecond))
			}
		}
	}
	sizes := []struct {
		key string
		opt func(int32) kgo.Opt
	}{
		{"fetch.min.bytes", func(n int32) kgo.Opt { return kgo.FetchMinBytes(n) }},
		{"fetch.max.bytes", func(n int32) kgo.Opt { return kgo.FetchMaxBytes(n) }},
		{"max.partition.fetch.bytes", func(n int32) kgo.Opt { return kgo.FetchMaxPartitionBytes(n) }},
		// batch.size is Java's target size of a batch, not a cap: a larger record goes in a
		// batch of its own. kgo fills batches up to their cap (max.request.size below), so
		// the target has no kgo equivalent; it is validated only.
		{"batch.size", nil},
		{"retries", func(n int32) kgo.Opt { return kgo.RecordRetries(int(n)) }},
		{"max.in.flight.requests.per.connection", func(n int32) kgo.Opt {
			return kgo.MaxProduceRequestsInflightPerBroker(int(n))
		}},
	}
	for _, s := range sizes {
		if v, ok := params[s.key]; ok {
			n, err := kafkaConfigInt(s.key, v, 32)
			if err != nil {
				return nil, err
			}
			if n > 0 && s.opt != nil {
				opts = append(opts, s.opt(int32(n)))
			}
		}
	}
	if v, ok := params["max.request.size"]; ok {
		n, err := kafkaConfigInt("max.request.size", v, 32)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			opts = append(opts, kafkaMaxRequestSize(int32(n))...)
		}
	}
	if v, ok := params["isolation.level"]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "read_committed":
			opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
		case "read_uncommitted":
			opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
		default:
			return nil, kafkaConfigValue("isolation.level", v, "String must be one of: read_committed, read_uncommitted")
		}
	}
	if v, ok := params["acks"]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "all", "-1":
			opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
		case "1":
			opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
		case "0":
			opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
		default:
			return nil, kafkaConfigValue("acks", v, "String must be one of: all, -1, 0, 1")
		}
	}
	if v, ok := params["enable.idempotence"]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
		case "false":
			opts = append(opts, kgo.DisableIdempotentWrite())
		default:
			return nil, kafkaConfigValue("enable.idempotence", v, "Expected value to be either true or false")
		}
	}
	if v, ok := params["compression.type"]; ok {
		codec, err := kafkaCompression(v)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.ProducerBatchCompression(codec))
	}
	return opts, nil
}

// kafkaMaxRequestSize maps max.request.size, Java's cap on a record (a record larger than it
// fails with RecordTooLargeException) and on a produce request: kgo's cap on a record batch
// (a record that does not fit fails with MESSAGE_TOO_LARGE), within kgo's bounds, and a
// per-broker write cap no smaller than the batch cap (kgo requires it).
func kafkaMaxRequestSize(n int32) []kgo.Opt {
	batch := min(max(n, 512), 1<<30)
	write := min(max(batch, 100<<20), 1<<30)
	return []kgo.Opt{kgo.ProducerBatchMaxBytes(batch), kgo.BrokerMaxWriteBytes(write)}
}

// kafkaCompression maps compression.type to a kgo codec.
func kafkaCompression(v string) (kgo.CompressionCodec, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "none":
		return kgo.NoCompression(), nil
	case "gzip":
		return kgo.GzipCompression(), nil
	case "snappy":
		return kgo.SnappyCompression(), nil
	case "lz4":
		return kgo.Lz4Compression(), nil
	case "zstd":
		return kgo.ZstdCompression(), nil
	}
	return kgo.NoCompression(), kafkaConfigValue("compression.type", v, "String must be one of: none, gzip, snappy, lz4, zstd")
}

// kafkaConfigInt parses a numeric Kafka option as Kafka's ConfigDef does (INT or LONG).
func kafkaConfigInt(key, v string, bits int) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, bits)
	if err != nil {
		kind := "LONG"
		if bits == 32 {
			kind = "INT"
		}
		return 0, kafkaConfigValue(key, v, "Not a number of type "+kind)
	}
	return n, nil
}

// kafkaConfigValue is Kafka's ConfigException for an invalid value.
func kafkaConfigValue(key, v, why string) *sparkerr.Error {
	return sparkerr.Newf(kafkaConfigException, "", "", "Invalid value %s for configuration %s: %s", v, key, why)
}

// KafkaSecurityError classifies a Kafka client error caused by authentication, authorization or
// TLS as the Kafka client's exception (SaslAuthenticationException, SslAuthenticationException,
// TopicAuthorizationException, ...) naming the servers; nil when err is none of these.
func KafkaSecurityError(err error, servers []string) *sparkerr.Error {
	at := strings.Join(servers, ",")
	var (
		verify    *tls.CertificateVerificationError
		unknownCA x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		record    tls.RecordHeaderError
		alert     tls.AlertError
	)
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed), errors.Is(err, kerr.IllegalSaslState),
		errors.Is(err, kerr.UnsupportedSaslMechanism):
		return sparkerr.Newf("org.apache.kafka.common.errors.SaslAuthenticationException", "", "",
			"SASL authentication with kafka.bootstrap.servers %s failed: %v", at, err).Wrap(err)
	case errors.As(err, &verify), errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &record),
		errors.As(err, &alert):
		return sparkerr.Newf("org.apache.kafka.common.errors.SslAuthenticationException", "", "",
			"SSL handshake with kafka.bootstrap.servers %s failed: %v", at, err).Wrap(err)
	case errors.Is(err, kerr.TopicAuthorizationFailed):
		return sparkerr.Newf("org.apache.kafka.common.errors.TopicAuthorizationException", "", "",
			"Not authorized to access topics (kafka.bootstrap.servers %s): %v", at, err).Wrap(err)
	case errors.Is(err, kerr.ClusterAuthorizationFailed), errors.Is(err, kerr.GroupAuthorizationFailed),
		errors.Is(err, kerr.TransactionalIDAuthorizationFailed):
		return sparkerr.Newf("org.apache.kafka.common.errors.AuthorizationException", "", "",
			"Not authorized (kafka.bootstrap.servers %s): %v", at, err).Wrap(err)
	}
	return nil
}
