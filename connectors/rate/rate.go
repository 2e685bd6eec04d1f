package rate

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The "rate" stream source, Spark's RateStreamProvider / RateStreamMicroBatchStream: rows
// (timestamp, value) with value counting up from 0 at rowsPerSecond, ramping up linearly over
// rampUpTime. Values and timestamps are Spark's: second s holds the values
// [valueAtSecond(s), valueAtSecond(s+1)), and value v of second s has the timestamp
// creation + s·1000 + round((v − valueAtSecond(s)) · 1000 / (valueAtSecond(s+1) − valueAtSecond(s)))
// ms, spreading the second's values evenly over it.
//
// Offsets differ from Spark's on purpose: an offset is a JSON integer of MILLISECONDS since
// the source's creation time (Spark's are whole seconds), so rows become readable as soon as
// their timestamp has passed rather than once their whole second has, and a query moves rows
// within milliseconds. Offset m covers the rows whose timestamp is before creation + m (and,
// at a whole second, the second's last values that round up onto its end, as in Spark);
// reading (start, end] yields the values [valueAtMs(start), valueAtMs(end)), each with its
// timestamp above, and partition p gets rangeStart + p + k·numPartitions. For whole-second
// offsets (multiples of 1000) this gives Spark's rows. The creation time is persisted through
// StreamEnv.Metadata as "v1\n<ms>" so a restarted query continues the same sequence.

// rateSchema is RateStreamProvider.SCHEMA (both fields nullable, as StructField defaults).
var rateSchema = sqltypes.Schema{
	{Name: "timestamp", Type: sqltypes.TimestampType, Nullable: true},
	{Name: "value", Type: sqltypes.LongType, Nullable: true},
}

// rateOptions are the rate source's validated options.
type rateOptions struct {
	rowsPerSecond int64
	rampUpSeconds int64
	numPartitions int
	// partitionsText is the numPartitions option as given, "default" when absent (Spark's
	// description shows it so).
	partitionsText string
}

// parseRateOptions validates options like RateStreamProvider.getTable.
func parseRateOptions(opts map[string]string, userSchema string, defaultPartitions int) (rateOptions, error) {
	opts = sources.NormalizeOptions(opts)
	if err := sources.NoUserSchema("RateStreamProvider", userSchema); err != nil {
		return rateOptions{}, err
	}
	var o rateOptions
	var err error
	if o.rowsPerSecond, err = sources.OptionLong(opts, "rowspersecond", 1); err != nil {
		return o, err
	}
	if err := sources.Positive("rowsPerSecond", o.rowsPerSecond); err != nil {
		return o, err
	}
	if s, ok := opts["rampuptime"]; ok {
		if o.rampUpSeconds, err = sources.TimeStringAsSec(s); err != nil {
			return o, err
		}
	}
	if o.rampUpSeconds < 0 {
		return o, sparkerr.IllegalArgument("Invalid value '%d'. The option 'rampUpTime' must not be negative", o.rampUpSeconds)
	}
	if o.numPartitions, err = sources.OptionInt(opts, "numpartitions", defaultPartitions); err != nil {
		return o, err
	}
	if err := sources.Positive("numPartitions", int64(o.numPartitions)); err != nil {
		return o, err
	}
	o.partitionsText = "default"
	if s, ok := opts["numpartitions"]; ok {
		o.partitionsText = s
	}
	if maxSeconds := math.MaxInt64 / o.rowsPerSecond; o.rampUpSeconds > maxSeconds {
		return o, sparkerr.Newf(sparkerr.SparkRuntimeException, "INCORRECT_RAMP_UP_RATE", "22003",
			"Max offset with %d rowsPerSecond is %d, but 'rampUpTimeSeconds' is %d.",
			o.rowsPerSecond, maxSeconds, o.rampUpSeconds).
			WithParams("rowsPerSecond", strconv.FormatInt(o.rowsPerSecond, 10),
				"maxSeconds", strconv.FormatInt(maxSeconds, 10),
				"rampUpTimeSeconds", strconv.FormatInt(o.rampUpSeconds, 10))
	}
	return o, nil
}

func rateSchemaFunc(opts map[string]string, userSchema string) (sqltypes.Schema, error) {
	// The default parallelism is unknown here; any positive stand-in validates the same.
	if _, err := parseRateOptions(opts, userSchema, 1); err != nil {
		return nil, err
	}
	return rateSchema, nil
}

// RateSource is the "rate" stream source.
type RateSource struct {
	opts       rateOptions
	mem        memory.Allocator
	clock      clock.Clock
	arrow      *arrow.Schema
	creationMs int64
	maxSeconds int64

	mu         sync.Mutex
	lastTimeMs int64
}

func openRate(_ context.Context, env sources.StreamEnv, opts map[string]string, userSchema string) (sources.StreamSource, error) {
	env = sources.EnvDefaults(env)
	o, err := parseRateOptions(opts, userSchema, env.DefaultPartitions)
	if err != nil {
		return nil, err
	}
	creation, err := rateCreationTime(env)
	if err != nil {
		return nil, err
	}
	return &RateSource{
		opts: o, mem: env.Mem, clock: env.Clock,
		arrow:      sqltypes.ToArrowSchema(rateSchema, env.TimeZone),
		creationMs: creation, lastTimeMs: creation,
		maxSeconds: math.MaxInt64 / o.rowsPerSecond,
	}, nil
}

// rateCreationTime reads the persisted creation time, or takes the clock's now and persists it.
func rateCreationTime(env sources.StreamEnv) (int64, error) {
	if env.Metadata == nil {
		return env.Clock.Now().UnixMilli(), nil
	}
	data, ok, err := env.Metadata.Get()
	if err != nil {
		return 0, err
	}
	if ok {
		return parseRateMetadata(string(data))
	}
	now := env.Clock.Now().UnixMilli()
	if err := env.Metadata.Put(fmt.Appendf(nil, "v1\n%d", now)); err != nil {
		return 0, err
	}
	return now, nil
}

// parseRateMetadata reads "v<version>\n<ms>" like the rate source's HDFSMetadataLog.
func parseRateMetadata(content string) (int64, error) {
	malformed := sparkerr.New(sources.IllegalStateException, "", "",
		"Log file was malformed: failed to detect the log file version line.")
	nl := strings.IndexByte(content, '\n')
	if !strings.HasPrefix(content, "v") || nl <= 0 {
		return 0, malformed
	}
	version, err := strconv.Atoi(content[1:nl])
	if err != nil || version <= 0 {
		return 0, sparkerr.New(sources.IllegalStateException, "", "",
			fmt.Sprintf("Log file was malformed: failed to read correct log version from %s.", content[:nl]))
	}
	if version > 1 {
		return 0, sparkerr.Newf(sources.IllegalStateException, "INVALID_LOG_VERSION.EXACT_MESSAGE", "KD002",
			"The log file was produced by a newer version of Spark and is incompatible with this version. UnsupportedLogVersion: maximum supported log version is v1, but encountered v%d.", version)
	}
	ms, err := strconv.ParseInt(strings.TrimSpace(content[nl+1:]), 10, 64)
	if err != nil {
		return 0, sparkerr.New(sources.IllegalStateException, "", "",
			"Log file was malformed: the rate source's creation time is not a number.")
	}
	return ms, nil
}

// Schema implements StreamSource.
func (r *RateSource) Schema() sqltypes.Schema { return rateSchema }

// Partitions implements StreamSource.
func (r *RateSource) Partitions() int { return r.opts.numPartitions }

// Description is Spark's RateStreamMicroBatchStream.toString (which has no closing bracket).
func (r *RateSource) Description() string {
	return fmt.Sprintf("RateStreamV2[rowsPerSecond=%d, rampUpTimeSeconds=%d, numPartitions=%s",
		r.opts.rowsPerSecond, r.opts.rampUpSeconds, r.opts.partitionsText)
}

// CreationTimeMs is the creation time offsets count milliseconds from.
func (r *RateSource) CreationTimeMs() int64 { return r.creationMs }

// Initial implements StreamSource: millisecond 0.
func (r *RateSource) Initial(context.Context) (sources.Offset, error) {
	return sources.LongOffset(0), nil
}

// Latest implements StreamSource: milliseconds since creation (never moving backwards), moved
// only when a new row became readable. A millisecond offset that moved with the clock alone would
// make every poll a new, empty batch (hundreds of progress events a second at 1 row/s), where
// Spark's seconds-offset runs a batch only when its second brings rows.
func (r *RateSource) Latest(context.Context) (sources.Offset, error) {
	now := r.clock.Now().UnixMilli()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastTimeMs < now && r.valueAtMs(now-r.creationMs) > r.valueAtMs(r.lastTimeMs-r.creationMs) {
		r.lastTimeMs = now
	}
	return sources.LongOffset(r.lastTimeMs - r.creationMs), nil
}

// Read implements StreamSource.
func (r *RateSource) Read(ctx context.Context, p int, start, end sources.Offset, emit func(arrow.RecordBatch) error) error {
	startMs, err := sources.ParseLongOffset("rate", start)
	if err != nil {
		return err
	}
	endMs, err := sources.ParseLongOffset("rate", end)
	if err != nil {
		return err
	}
	if startMs > endMs || startMs < 0 {
		return sparkerr.Internal("assertion failed: startMs(%d) > endMs(%d)", startMs, endMs)
	}
	// valueAtMs(endMs) needs the end value of endMs's second.
	if endSec := endMs/1000 + 1; endSec > r.maxSeconds {
		return sparkerr.Internal("Max offset with %d rowsPerSecond is %d, but it's %d now.", r.opts.rowsPerSecond, r.maxSeconds, endSec)
	}
	// A replayed range moves the latest time forward (recovery).
	r.mu.Lock()
	if t := endMs + r.creationMs; r.lastTimeMs < t {
		r.lastTimeMs = t
	}
	r.mu.Unlock()
	rangeStart, rangeEnd := r.valueAtMs(startMs), r.valueAtMs(endMs)
	if rangeStart == rangeEnd || p < 0 || p >= r.opts.numPartitions {
		return nil
	}
	sec := r.secondOf(startMs)
	rows := rateBatches{mem: r.mem, schema: r.arrow, stamp: func(vals, ts []int64) {
		for i, v := range vals {
			for v >= sec.endValue {
				sec = r.second(sec.index + 1)
			}
			ts[i] = (r.creationMs + sec.stampMs(v)) * 1000
		}
	}}
	return rows.emit(ctx, rangeStart+int64(p), rangeEnd, int64(r.opts.numPartitions), emit)
}

// rateSecond is one second of the source: its values [startValue, endValue).
type rateSecond struct {
	index                int64
	startValue, endValue int64
	msPerValue           float64
}

func (r *RateSource) second(s int64) rateSecond {
	sec := rateSecond{index: s,
		startValue: valueAtSecond(s, r.opts.rowsPerSecond, r.opts.rampUpSeconds),
		endValue:   valueAtSecond(s+1, r.opts.rowsPerSecond, r.opts.rampUpSeconds)}
	if sec.endValue > sec.startValue {
		sec.msPerValue = 1000 / float64(sec.endValue-sec.startValue)
	}
	return sec
}

// secondOf is the second holding millisecond ms.
func (r *RateSource) secondOf(ms int64) rateSecond { return r.second(ms / 1000) }

// stampMs is value v's timestamp in ms since creation (Spark's spreading of a second's values,
// with Spark's double arithmetic).
func (s rateSecond) stampMs(v int64) int64 {
	return s.index*1000 + int64(math.Round(float64(v-s.startValue)*s.msPerValue))
}

// valueAtMs is the end value of offset ms: the first value of ms's second whose timestamp is
// at or after ms milliseconds since creation (at a whole second, the second's first value).
func (r *RateSource) valueAtMs(ms int64) int64 {
	sec := r.secondOf(ms)
	within := ms % 1000
	n := sec.endValue - sec.startValue
	if within == 0 || n == 0 {
		return sec.startValue
	}
	// Values k of the second with round(k·1000/n) < within: k < (2·within − 1)·n / 2000,
	// computed exactly in 128 bits, then settled against the double arithmetic of stampMs.
	hi, lo := bits.Mul64(uint64(2*within-1), uint64(n))
	lo, carry := bits.Add64(lo, 1999, 0)
	k, _ := bits.Div64(hi+carry, lo, 2000)
	count := int64(min(k, uint64(n)))
	for count > 0 && sec.stampMs(sec.startValue+count-1) >= ms {
		count--
	}
	for count < n && sec.stampMs(sec.startValue+count) < ms {
		count++
	}
	return sec.startValue + count
}

// Close implements StreamSource.
func (r *RateSource) Close() error { return nil }

// valueAtSecond is RateStreamProvider.valueAtSecond: the end value emitted at `seconds`, with
// the speed growing by rowsPerSecond/(rampUpTimeSeconds+1) per second during ramp-up.
func valueAtSecond(seconds, rowsPerSecond, rampUpTimeSeconds int64) int64 {
	speedDeltaPerSecond := rowsPerSecond / (rampUpTimeSeconds + 1)
	if seconds <= rampUpTimeSeconds {
		if seconds%2 == 1 {
			return (seconds + 1) / 2 * speedDeltaPerSecond * seconds
		}
		return seconds / 2 * speedDeltaPerSecond * (seconds + 1)
	}
	rampUpPart := valueAtSecond(rampUpTimeSeconds, rowsPerSecond, rampUpTimeSeconds)
	return rampUpPart + (seconds-rampUpTimeSeconds)*rowsPerSecond
}
