package kafka

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Kafka source options, validated with the messages of Spark's KafkaSourceProvider. Keys are
// lower-case (NormalizeOptions).

// kafkaStrategy is how the source picks its topic-partitions.
type kafkaStrategy int

const (
	kafkaSubscribe kafkaStrategy = iota
	kafkaSubscribePattern
	kafkaAssign
)

// kafkaOptions are a Kafka source's parsed options.
type kafkaOptions struct {
	bootstrap      []string
	strategy       kafkaStrategy
	topics         []string           // subscribe
	pattern        *regexp.Regexp     // subscribePattern
	assign         map[string][]int32 // assign
	start          kafkaLimit         // startingOffsets / startingTimestamp / startingOffsetsByTimestamp
	end            kafkaLimit         // batch reads only: endingOffsets / endingTimestamp / endingOffsetsByTimestamp
	maxOffsets     int64              // maxOffsetsPerTrigger (0: none)
	minOffsets     int64              // minOffsetsPerTrigger (0: none)
	maxDelay       time.Duration      // maxTriggerDelay (default 15m)
	minPartitions  int                // minPartitions (0: none): split large ranges (kafkaSplit)
	failOnDataLoss bool               // failOnDataLoss (default true)
	headers        bool               // includeHeaders
	apiTimeout     time.Duration      // metadata and offset requests
	pollTimeout    time.Duration      // a fetch making no progress for this long fails
	kafkaParams    map[string]string  // kafka.* passthrough (without the prefix)
}

// Spark's messages for the Kafka consumer options it refuses.
var kafkaForbiddenSource = map[string]string{
	"group.id": "",
	"auto.offset.reset": "Kafka option 'auto.offset.reset' is not supported. Instead set the source option " +
		"'startingoffsets' to 'earliest' or 'latest' to specify where to start. Structured Streaming manages which " +
		"offsets are consumed internally, rather than relying on the kafkaConsumer to do it. This will ensure that " +
		"no data is missed when new topics/partitions are dynamically subscribed. Note that 'startingoffsets' only " +
		"applies when a new Streaming query is started, and that resuming will always pick up from where the query " +
		"left off. See the docs for more details.",
	"key.deserializer": "Kafka option 'key.deserializer' is not supported as keys are deserialized as byte arrays " +
		"with ByteArrayDeserializer. Use DataFrame operations to explicitly deserialize the keys.",
	"value.deserializer": "Kafka option 'value.deserializer' is not supported as values are deserialized as byte " +
		"arrays with ByteArrayDeserializer. Use DataFrame operations to explicitly deserialize the values.",
	"enable.auto.commit":  "Kafka option 'enable.auto.commit' is not supported.",
	"interceptor.classes": "Kafka option 'interceptor.classes' is not supported.",
}

// kafkaSchema is the Kafka source's fixed schema (Spark's KafkaRecordToRowConverter).
func kafkaSchema(headers bool) sqltypes.Schema {
	s := sqltypes.Schema{
		{Name: "key", Type: sqltypes.BinaryType, Nullable: true},
		{Name: "value", Type: sqltypes.BinaryType, Nullable: true},
		{Name: "topic", Type: sqltypes.StringType, Nullable: true},
		{Name: "partition", Type: sqltypes.IntegerType, Nullable: true},
		{Name: "offset", Type: sqltypes.LongType, Nullable: true},
		{Name: "timestamp", Type: sqltypes.TimestampType, Nullable: true},
		{Name: "timestampType", Type: sqltypes.IntegerType, Nullable: true},
	}
	if headers {
		s = append(s, sqltypes.Field{Name: "headers", Nullable: true,
			Type: sqltypes.ArrayType(sqltypes.StructType(
				sqltypes.Field{Name: "key", Type: sqltypes.StringType, Nullable: true},
				sqltypes.Field{Name: "value", Type: sqltypes.BinaryType, Nullable: true}), true)})
	}
	return s
}

// kafkaDefaultAPITimeout is the Kafka client's default.api.timeout.ms: how long offset listings
// retry transient errors (a broker restarting) before the read fails.
const kafkaDefaultAPITimeout = 60 * time.Second

// parseKafkaOptions validates a Kafka source's options; batch selects the batch rules
// (startingOffsets cannot be latest, endingOffsets allowed).
func parseKafkaOptions(opts map[string]string, userSchema string, batch bool) (kafkaOptions, error) {
	if strings.TrimSpace(userSchema) != "" {
		return kafkaOptions{}, sparkerr.Analysis("_LEGACY_ERROR_TEMP_2242", "",
			"Kafka source has a fixed schema and cannot be set with a custom one")
	}
	o := kafkaOptions{failOnDataLoss: true, kafkaParams: map[string]string{},
		apiTimeout: kafkaDefaultAPITimeout, pollTimeout: 30 * time.Second}
	for k, v := range opts {
		if !strings.HasPrefix(k, "kafka.") {
			continue
		}
		key := strings.TrimPrefix(k, "kafka.")
		if msg, forbidden := kafkaForbiddenSource[key]; forbidden && msg != "" {
			return o, sparkerr.IllegalArgument("%s", msg)
		}
		o.kafkaParams[key] = v
	}
	if o.bootstrap = kafkaServers(o.kafkaParams["bootstrap.servers"]); len(o.bootstrap) == 0 {
		return o, sparkerr.IllegalArgument("Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer")
	}
	var given []string
	for _, k := range []string{"subscribe", "subscribepattern", "assign"} {
		if _, ok := opts[k]; ok {
			given = append(given, k)
		}
	}
	switch {
	case len(given) == 0:
		return o, sparkerr.IllegalArgument("One of the following options must be specified for Kafka source: " +
			"subscribe, subscribepattern, assign. See the docs for more details.")
	case len(given) > 1:
		return o, sparkerr.IllegalArgument("Only one of the following options can be specified for Kafka source: " +
			"subscribe, subscribepattern, assign. See the docs for more details.")
	}
	switch given[0] {
	case "subscribe":
		v := opts["subscribe"]
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				o.topics = append(o.topics, t)
			}
		}
		if len(o.topics) == 0 {
			return o, sparkerr.IllegalArgument("No topics to subscribe to as specified value for option 'subscribe' is '%s'", v)
		}
		o.strategy = kafkaSubscribe
	case "subscribepattern":
		v := strings.TrimSpace(opts["subscribepattern"])
		if v == "" {
			return o, sparkerr.IllegalArgument("Pattern to subscribe is empty as specified value for option 'subscribePattern' is '%s'", opts["subscribepattern"])
		}
		re, err := regexp.Compile("^(?:" + v + ")$")
		if err != nil {
			return o, sparkerr.IllegalArgument("Invalid subscribePattern '%s': %v", v, err)
		}
		o.pattern, o.strategy = re, kafkaSubscribePattern
	case "assign":
		v := strings.TrimSpace(opts["assign"])
		if !strings.HasPrefix(v, "{") {
			return o, sparkerr.IllegalArgument("No topicpartitions to assign as specified value for option 'assign' is '%s'", opts["assign"])
		}
		var a map[string][]int32
		if err := json.Unmarshal([]byte(v), &a); err != nil {
			return o, sparkerr.IllegalArgument("Expected e.g. {\"topicA\":[0,1],\"topicB\":[0,1]}, got %s", v)
		}
		o.assign, o.strategy = a, kafkaAssign
	}
	if err := o.parseLimits(opts, batch); err != nil {
		return o, err
	}
	var err error
	if o.maxOffsets, err = sources.OptionLong(opts, "maxoffsetspertrigger", 0); err != nil {
		return o, err
	}
	if o.minOffsets, err = sources.OptionLong(opts, "minoffsetspertrigger", 0); err != nil {
		return o, err
	}
	if _, hasMax := opts["maxoffsetspertrigger"]; hasMax && o.minOffsets > o.maxOffsets {
		return o, sparkerr.IllegalArgument("The value of minOffsetPerTrigger(%d) is higher than the maxOffsetsPerTrigger(%d).",
			o.minOffsets, o.maxOffsets)
	}
	delay := "15m"
	if v, ok := opts["maxtriggerdelay"]; ok {
		delay = v
	}
	ms, err := timeStringAsMs(delay)
	if err != nil {
		return o, err
	}
	o.maxDelay = time.Duration(ms) * time.Millisecond
	if v, ok := opts["minpartitions"]; ok {
		n, err := sources.ParseJavaLong(strings.TrimSpace(v), 32)
		if err != nil {
			return o, err
		}
		if n <= 0 {
			return o, sparkerr.IllegalArgument("minPartitions must be positive")
		}
		o.minPartitions = int(n)
	}
	if v, ok := opts["maxrecordsperpartition"]; ok {
		n, err := sources.ParseJavaLong(strings.TrimSpace(v), 64)
		if err != nil {
			return o, err
		}
		if n <= 0 {
			return o, sparkerr.IllegalArgument("maxRecordsPerPartition must be positive")
		}
	}
	if v, ok := opts["failondataloss"]; ok {
		b, perr := strconv.ParseBool(strings.TrimSpace(v))
		if perr != nil {
			return o, sparkerr.IllegalArgument("failOnDataLoss must be true or false, got %s", v)
		}
		o.failOnDataLoss = b
	}
	if v, ok := opts["includeheaders"]; ok {
		b, perr := strconv.ParseBool(strings.TrimSpace(v))
		if perr != nil {
			return o, sparkerr.IllegalArgument("includeHeaders must be true or false, got %s", v)
		}
		o.headers = b
	}
	if ms, err := sources.OptionLong(opts, "kafkaconsumer.polltimeoutms", 0); err != nil {
		return o, err
	} else if ms > 0 {
		o.pollTimeout = time.Duration(ms) * time.Millisecond
	}
	if v, ok := o.kafkaParams["default.api.timeout.ms"]; ok {
		ms, err := sources.ParseJavaLong(v, 32)
		if err != nil {
			return o, err
		}
		o.apiTimeout = time.Duration(ms) * time.Millisecond
	}
	return o, nil
}

// kafkaOffsets is a Kafka offset: topic → partition → the next offset to read (Spark's
// KafkaSourceOffset JSON, e.g. {"topic":{"0":23}}; -2 is earliest and -1 latest in
// startingOffsets).
type kafkaOffsets = map[string]map[int32]int64

func parseKafkaOffsets(s string) (kafkaOffsets, error) {
	out, err := parseKafkaPartitionMap(s)
	if err != nil {
		return nil, sparkerr.IllegalArgument("Expected e.g. {\"topicA\":{\"0\":23,\"1\":-1},\"topicB\":{\"0\":-2}}, got %s", s)
	}
	return out, nil
}

// encodeKafkaOffsets renders offsets as Spark's JSON, topics and partitions in order.
func encodeKafkaOffsets(o kafkaOffsets) sources.Offset {
	topics := make([]string, 0, len(o))
	for t := range o {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	var b strings.Builder
	b.WriteByte('{')
	for i, t := range topics {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(t)
		b.Write(name)
		b.WriteString(":{")
		ps := make([]int32, 0, len(o[t]))
		for p := range o[t] {
			ps = append(ps, p)
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
		for j, p := range ps {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + strconv.Itoa(int(p)) + `":` + strconv.FormatInt(o[t][p], 10))
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return sources.Offset(b.String())
}

func decodeKafkaOffsets(o sources.Offset) (kafkaOffsets, error) {
	if len(o) == 0 || string(o) == "null" {
		return kafkaOffsets{}, nil
	}
	return parseKafkaOffsets(string(o))
}

// kafkaTopicPartition names one partition of a topic.
type kafkaTopicPartition struct {
	Topic     string
	Partition int32
}

// sortedPartitions lists o's topic-partitions in (topic, partition) order.
func sortedPartitions(o kafkaOffsets) []kafkaTopicPartition {
	var out []kafkaTopicPartition
	for t, ps := range o {
		for p := range ps {
			out = append(out, kafkaTopicPartition{t, p})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}

// rateLimitKafka caps the epoch (from, until] at limit offsets in all, spread over the
// partitions in proportion to their backlog (Spark's KafkaMicroBatchStream.rateLimit).
// Partitions missing from from start at the offset given by newStart.
func rateLimitKafka(limit int64, from, until kafkaOffsets, newStart func(kafkaTopicPartition) int64) kafkaOffsets {
	sizes := map[kafkaTopicPartition]int64{}
	var total int64
	for _, tp := range sortedPartitions(until) {
		begin, ok := from[tp.Topic][tp.Partition]
		if !ok {
			begin = newStart(tp)
		}
		if size := until[tp.Topic][tp.Partition] - begin; size > 0 {
			sizes[tp] = size
			total += size
		}
	}
	if total <= limit {
		return until
	}
	out := kafkaOffsets{}
	for _, tp := range sortedPartitions(until) {
		end := until[tp.Topic][tp.Partition]
		if out[tp.Topic] == nil {
			out[tp.Topic] = map[int32]int64{}
		}
		size, ok := sizes[tp]
		if !ok {
			out[tp.Topic][tp.Partition] = end
			continue
		}
		begin := end - size
		prorate := float64(limit) * (float64(size) / float64(total))
		var n int64
		if prorate < 1 {
			n = int64(ceil(prorate))
		} else {
			n = int64(prorate)
		}
		out[tp.Topic][tp.Partition] = min(end, begin+n)
	}
	return out
}

func ceil(f float64) float64 {
	if i := float64(int64(f)); i < f {
		return i + 1
	}
	return f
}
