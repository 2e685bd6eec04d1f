package sources

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sqltypes"
)

// The "rate" stream source, Spark's RateStreamProvider / RateStreamMicroBatchStream: rows
// (timestamp, value) with value counting up from 0 at rowsPerSecond, ramping up linearly over
// rampUpTime. Offsets are whole seconds since the source's creation time (a JSON integer);
// the creation time is persisted through StreamEnv.Metadata as "v1\n<ms>" so a restarted
// query continues the same sequence. Reading (start, end] yields the values
// [valueAtSecond(start), valueAtSecond(end)); partition p gets rangeStart + p + k·numPartitions
// and value v the timestamp creation + start·1000 + round((v − rangeStart)·msPerValue) ms,
// spreading the range's values evenly over its seconds.

func init() {
	RegisterStream("rate", openRate, rateSchemaFunc)
}

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
	opts = NormalizeOptions(opts)
	if err := noUserSchema("RateStreamProvider", userSchema); err != nil {
		return rateOptions{}, err
	}
	var o rateOptions
	var err error
	if o.rowsPerSecond, err = optionLong(opts, "rowspersecond", 1); err != nil {
		return o, err
	}
	if err := positive("rowsPerSecond", o.rowsPerSecond); err != nil {
		return o, err
	}
	if s, ok := opts["rampuptime"]; ok {
		if o.rampUpSeconds, err = timeStringAsSec(s); err != nil {
			return o, err
		}
	}
	if o.rampUpSeconds < 0 {
		return o, sparkerr.IllegalArgument("Invalid value '%d'. The option 'rampUpTime' must not be negative", o.rampUpSeconds)
	}
	if o.numPartitions, err = optionInt(opts, "numpartitions", defaultPartitions); err != nil {
		return o, err
	}
	if err := positive("numPartitions", int64(o.numPartitions)); err != nil {
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

func openRate(_ context.Context, env StreamEnv, opts map[string]string, userSchema string) (StreamSource, error) {
	env = envDefaults(env)
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
func rateCreationTime(env StreamEnv) (int64, error) {
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
	malformed := sparkerr.New(illegalStateException, "", "",
		"Log file was malformed: failed to detect the log file version line.")
	nl := strings.IndexByte(content, '\n')
	if !strings.HasPrefix(content, "v") || nl <= 0 {
		return 0, malformed
	}
	version, err := strconv.Atoi(content[1:nl])
	if err != nil || version <= 0 {
		return 0, sparkerr.New(illegalStateException, "", "",
			fmt.Sprintf("Log file was malformed: failed to read correct log version from %s.", content[:nl]))
	}
	if version > 1 {
		return 0, sparkerr.Newf(illegalStateException, "INVALID_LOG_VERSION.EXACT_MESSAGE", "KD002",
			"The log file was produced by a newer version of Spark and is incompatible with this version. UnsupportedLogVersion: maximum supported log version is v1, but encountered v%d.", version)
	}
	ms, err := strconv.ParseInt(strings.TrimSpace(content[nl+1:]), 10, 64)
	if err != nil {
		return 0, sparkerr.New(illegalStateException, "", "",
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

// CreationTimeMs is the creation time offsets count seconds from.
func (r *RateSource) CreationTimeMs() int64 { return r.creationMs }

// Initial implements StreamSource: second 0.
func (r *RateSource) Initial(context.Context) (Offset, error) { return longOffset(0), nil }

// Latest implements StreamSource: whole seconds since creation (never moving backwards).
func (r *RateSource) Latest(context.Context) (Offset, error) {
	now := r.clock.Now().UnixMilli()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastTimeMs < now {
		r.lastTimeMs = now
	}
	return longOffset((r.lastTimeMs - r.creationMs) / 1000), nil
}

// Read implements StreamSource.
func (r *RateSource) Read(ctx context.Context, p int, start, end Offset, emit func(arrow.RecordBatch) error) error {
	startSec, err := parseLongOffset("rate", start)
	if err != nil {
		return err
	}
	endSec, err := parseLongOffset("rate", end)
	if err != nil {
		return err
	}
	if startSec > endSec || startSec < 0 {
		return sparkerr.Internal("assertion failed: startSeconds(%d) > endSeconds(%d)", startSec, endSec)
	}
	if endSec > r.maxSeconds {
		return sparkerr.Internal("Max offset with %d rowsPerSecond is %d, but it's %d now.", r.opts.rowsPerSecond, r.maxSeconds, endSec)
	}
	// A replayed range moves the latest time forward (recovery).
	r.mu.Lock()
	if t := endSec*1000 + r.creationMs; r.lastTimeMs < t {
		r.lastTimeMs = t
	}
	r.mu.Unlock()
	rangeStart := valueAtSecond(startSec, r.opts.rowsPerSecond, r.opts.rampUpSeconds)
	rangeEnd := valueAtSecond(endSec, r.opts.rowsPerSecond, r.opts.rampUpSeconds)
	if rangeStart == rangeEnd || p < 0 || p >= r.opts.numPartitions {
		return nil
	}
	localStartMs := r.creationMs + startSec*1000
	msPerValue := float64((endSec-startSec)*1000) / float64(rangeEnd-rangeStart)
	step := int64(r.opts.numPartitions)
	ts := array.NewTimestampBuilder(r.mem, r.arrow.Field(0).Type.(*arrow.TimestampType))
	defer ts.Release()
	vals := array.NewInt64Builder(r.mem)
	defer vals.Release()
	flush := func() error {
		if vals.Len() == 0 {
			return nil
		}
		tsArr, valArr := ts.NewArray(), vals.NewArray()
		rec := array.NewRecordBatch(r.arrow, []arrow.Array{tsArr, valArr}, int64(valArr.Len()))
		tsArr.Release()
		valArr.Release()
		return emit(rec)
	}
	for v := rangeStart + int64(p); v < rangeEnd; {
		relative := int64(math.Round(float64(v-rangeStart) * msPerValue))
		ts.Append(arrow.Timestamp((relative + localStartMs) * 1000))
		vals.Append(v)
		if vals.Len() == RangeBatchRows {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := flush(); err != nil {
				return err
			}
		}
		if v > rangeEnd-step {
			break
		}
		v += step
	}
	return flush()
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
