package sources

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/fileaccess"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Offset is a stream source's position: JSON, stored in the checkpoint's offsets log and shown
// in progress reports (e.g. `5` for the rate source's seconds, `{"topic":{"0":23}}` for Kafka).
type Offset = json.RawMessage

// StreamSource is an unbounded source read epoch by epoch. The query's coordinator asks for
// Latest, decides an epoch's range (start, end], logs it, and has every partition Read exactly
// that range; a replayed epoch (after a crash) reads the same range again and must produce the
// same rows where the source is replayable (rate, rate-micro-batch, Kafka; not socket).
type StreamSource interface {
	// Schema is the rows' schema.
	Schema() sqltypes.Schema
	// Partitions is the number of partitions Read is called for.
	Partitions() int
	// Description is the source's description in progress reports.
	Description() string
	// Initial is the offset before the first row.
	Initial(ctx context.Context) (Offset, error)
	// Latest is the newest offset available now.
	Latest(ctx context.Context) (Offset, error)
	// Read emits partition p's rows in (start, end] as batches of user columns (Schema()); emit
	// takes ownership of each batch.
	Read(ctx context.Context, p int, start, end Offset, emit func(arrow.RecordBatch) error) error
	// Close releases the source (connections, buffers).
	Close() error
}

// StreamEnv is what a stream source is opened with.
type StreamEnv struct {
	Mem   memory.Allocator
	Clock clock.Clock
	// DefaultPartitions is the default parallelism (numPartitions when not given).
	DefaultPartitions int
	// TimeZone is the session time zone (for timestamp columns).
	TimeZone string
	// MaxLineBytes bounds a line of the text, JSON and CSV file sources (MaxLineBytesConf;
	// ≤ 0: the default).
	MaxLineBytes int64
	// Metadata, if set, persists source metadata (e.g. the rate source's creation time) so a
	// restarted query resumes the same stream; nil means none is kept.
	Metadata MetadataStore
	// Files is the file-access policy the file sources check their paths with (nil: the
	// always-on rules only).
	Files *fileaccess.Policy
}

// MetadataStore keeps a source's metadata across restarts (checkpoints.Store implements it per
// query and source index).
type MetadataStore interface {
	Get() ([]byte, bool, error)
	Put([]byte) error
}

// StreamFactory opens a stream source from user options (case-insensitive keys, as Spark
// treats them) and an optional user schema (DDL; "" if none).
type StreamFactory func(ctx context.Context, env StreamEnv, options map[string]string, userSchema string) (StreamSource, error)

// StreamSchemaFunc returns a source's schema without opening it (for analysis of
// spark.readStream... before start); it validates options the same way the factory does.
type StreamSchemaFunc func(options map[string]string, userSchema string) (sqltypes.Schema, error)

// NormalizeOptions lower-cases option keys (Spark's options are case-insensitive).
func NormalizeOptions(options map[string]string) map[string]string {
	out := make(map[string]string, len(options))
	for k, v := range options {
		out[strings.ToLower(k)] = v
	}
	return out
}
