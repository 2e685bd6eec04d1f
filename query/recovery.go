package query

import (
	"encoding/json"
	"fmt"

	"github.com/weirhq/weir/checkpoints"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

// epochRecord is an offsets-log entry: the (Start, End] range of every source an epoch covers,
// written (synced) before the epoch is handed to the sources, with the epoch's metadata.
type epochRecord struct {
	Epoch int64            `json:"epoch"`
	Start []sources.Offset `json:"start"`
	End   []sources.Offset `json:"end"`
	Meta  *offsetMeta      `json:"metadata,omitempty"`
}

// offsetMeta is Spark's OffsetSeqMetadata: what an epoch ran with, so that a restart continues
// with it and an epoch that runs again runs exactly as it first did.
type offsetMeta struct {
	// BatchWatermarkMs is the event-time watermark the epoch's rows are judged against (the
	// global watermark after the epochs before; 0 before the first), in milliseconds.
	BatchWatermarkMs int64 `json:"batchWatermarkMs"`
	// BatchTimestampMs is the epoch's processing time (the clock when it was logged).
	BatchTimestampMs int64 `json:"batchTimestampMs"`
	// Conf holds the session settings a restarted query keeps from its checkpoint
	// (spark.sql.streaming.multipleWatermarkPolicy, spark.sql.shuffle.partitions).
	Conf map[string]string `json:"conf,omitempty"`
	// WatermarksUs is Weir's own: the watermark of each withWatermark node (plan order) in
	// microseconds, absent for a node without one yet.
	WatermarksUs []*int64 `json:"weirWatermarksUs,omitempty"`
}

func encodeRecord(r epochRecord) ([]byte, error) {
	// A source without an offset yet is JSON null.
	norm := func(offs []sources.Offset) []sources.Offset {
		out := make([]sources.Offset, len(offs))
		for i, o := range offs {
			if len(o) == 0 {
				o = sources.Offset("null")
			}
			out[i] = o
		}
		return out
	}
	return json.Marshal(epochRecord{Epoch: r.Epoch, Start: norm(r.Start), End: norm(r.End), Meta: r.Meta})
}

func decodeRecord(b []byte) (epochRecord, error) {
	var r epochRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return r, err
	}
	denull := func(offs []sources.Offset) {
		for i, o := range offs {
			if string(o) == "null" {
				offs[i] = nil
			}
		}
	}
	denull(r.Start)
	denull(r.End)
	return r, nil
}

// recoveryLog is what a checkpoint's logs say at start.
type recoveryLog struct {
	// commit is the last committed epoch's offsets record (nil: nothing committed).
	commit *epochRecord
	// next is the offsets record of the epoch after the last commit (after nothing: epoch 0),
	// nil if it was never logged.
	next *epochRecord
}

// resumePlan is where a query starts: the id of its next epoch, the offsets it starts from
// (nil: the sources' initial offsets), the epoch whose state the operators restore (restore
// false: none) and an epoch to re-run first with exactly its logged offsets (nil: none).
type resumePlan struct {
	next       int64
	start      []sources.Offset
	restore    bool
	restoreAt  int64
	replay     *epochRecord
	lastCommit int64 // -1: none
	// conf is the session settings the checkpoint's latest logged epoch ran with (nil: none).
	conf map[string]string
}

// planRecovery decides how a query resumes from its logs (pure). The last commit C fixes the
// state to restore and where the sources resume; offsets logged for C+1 without a commit are an
// epoch that may have partly run: it runs again with exactly those offsets, under the same id,
// so idempotent sinks skip what they already committed.
func planRecovery(l recoveryLog) resumePlan {
	p := resumePlan{lastCommit: -1}
	if l.commit != nil {
		c := l.commit
		p.next, p.start = c.Epoch+1, c.End
		p.restore, p.restoreAt, p.lastCommit = true, c.Epoch, c.Epoch
		if c.Meta != nil {
			p.conf = c.Meta.Conf
		}
	}
	if l.next != nil && l.next.Epoch == p.next {
		r := *l.next
		p.replay = &r
		if r.Meta != nil {
			p.conf = r.Meta.Conf
		}
		if p.start == nil {
			p.start = r.Start
		}
	}
	return p
}

// readRecovery reads the logs planRecovery needs.
func readRecovery(store *checkpoints.Store) (recoveryLog, error) {
	var l recoveryLog
	read := func(epoch int64) (*epochRecord, error) {
		b, ok, err := store.Offsets(storeKey, epoch)
		if err != nil || !ok {
			return nil, err
		}
		r, err := decodeRecord(b)
		if err != nil {
			return nil, fmt.Errorf("offsets log entry %d: %w", epoch, err)
		}
		return &r, nil
	}
	fail := func(err error) (recoveryLog, error) {
		return l, sparkerr.Newf(sparkerr.SparkException, "", "", "cannot read the checkpoint's logs: %v", err).Wrap(err)
	}
	next := int64(0)
	c, ok, err := store.LastCommit(storeKey)
	if err != nil {
		return fail(err)
	}
	if ok {
		if l.commit, err = read(c); err != nil {
			return fail(err)
		}
		if l.commit == nil {
			return fail(fmt.Errorf("epoch %d is committed but its offsets are not logged", c))
		}
		next = c + 1
	}
	if l.next, err = read(next); err != nil {
		return fail(err)
	}
	return l, nil
}
