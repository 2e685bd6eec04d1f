package kafka

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// records turns output rows into Kafka records (Partition -1: the partitioner chooses). The
// value, key and topic columns are read straight from their Arrow arrays; the bytes of a batch
// are copied into one buffer the records share (they outlive the batch in the producer).
func (s *kafkaSink) records(recs []arrow.RecordBatch) ([]*kgo.Record, error) {
	schema := s.env.Schema
	var out []*kgo.Record
	for _, rec := range recs {
		n := int(rec.NumRows())
		value := newBytesColumn(rec.Column(s.cols.value), schema[s.cols.value].Type)
		var key, topic bytesColumn
		size := value.size()
		if s.cols.key >= 0 {
			key = newBytesColumn(rec.Column(s.cols.key), schema[s.cols.key].Type)
			size += key.size()
		}
		if s.topic == "" {
			topic = newBytesColumn(rec.Column(s.cols.topic), schema[s.cols.topic].Type)
		}
		var partition *array.Int32
		if s.cols.partition >= 0 {
			partition, _ = rec.Column(s.cols.partition).(*array.Int32)
		}
		buf := make([]byte, 0, size)
		rows := make([]kgo.Record, n)
		for i := range rows {
			r := &rows[i]
			r.Topic, r.Partition = s.topic, -1
			if r.Topic == "" {
				r.Topic = topic.stringAt(i)
				if r.Topic == "" {
					return nil, sparkerr.New(illegalStateJava, "", "",
						"Unable to write to Kafka: the topic of a row is null and no topic option is set")
				}
			}
			r.Value, buf = value.appendAt(buf, i)
			if key.arr != nil {
				r.Key, buf = key.appendAt(buf, i)
			}
			if partition != nil && partition.IsValid(i) {
				r.Partition = partition.Value(i)
			}
			if s.cols.headers >= 0 {
				hs, _ := expr.ValueAt(rec.Column(s.cols.headers), i, schema[s.cols.headers].Type).([]any)
				for _, h := range hs {
					kv, ok := h.([]any)
					if !ok || len(kv) != 2 {
						continue
					}
					k, _ := kv[0].(string)
					r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: bytesOf(kv[1])})
				}
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// bytesColumn reads a string or binary column's values as bytes without copying them.
type bytesColumn struct {
	arr arrow.Array
	str *array.String
	bin *array.Binary
	typ sqltypes.DataType // for another layout: values through expr.ValueAt
}

func newBytesColumn(arr arrow.Array, typ sqltypes.DataType) bytesColumn {
	c := bytesColumn{arr: arr, typ: typ}
	switch a := arr.(type) {
	case *array.String:
		c.str = a
	case *array.Binary:
		c.bin = a
	}
	return c
}

// size is the byte length of the column's values (0 when unknown).
func (c bytesColumn) size() int {
	var offs []int32
	switch {
	case c.str != nil:
		offs = c.str.ValueOffsets()
	case c.bin != nil:
		offs = c.bin.ValueOffsets()
	}
	if len(offs) == 0 {
		return 0
	}
	return int(offs[len(offs)-1] - offs[0])
}

// appendAt appends row i's bytes to buf and returns them as a slice of it (nil for null) and
// the grown buf.
func (c bytesColumn) appendAt(buf []byte, i int) ([]byte, []byte) {
	if c.arr.IsNull(i) {
		return nil, buf
	}
	n := len(buf)
	switch {
	case c.str != nil:
		buf = append(buf, c.str.Value(i)...)
	case c.bin != nil:
		buf = append(buf, c.bin.Value(i)...)
	default:
		buf = append(buf, bytesOf(expr.ValueAt(c.arr, i, c.typ))...)
	}
	return buf[n:len(buf):len(buf)], buf
}

// stringAt returns row i's value as a string ("" for null).
func (c bytesColumn) stringAt(i int) string {
	if c.arr.IsNull(i) {
		return ""
	}
	if c.str != nil {
		return c.str.Value(i)
	}
	b, _ := c.appendAt(nil, i)
	return string(b)
}

const illegalStateJava = "java.lang.IllegalStateException"

func bytesOf(v any) []byte {
	switch x := v.(type) {
	case string:
		return []byte(x)
	case []byte:
		return append([]byte(nil), x...)
	}
	return nil
}

// recover starts a run of the exactly-once sink, once for all its partitions: it fences the
// transactional ids of partitions 0..partitions-1 and returns the committed markers (the last
// epoch committed to Kafka per transactional id).
func (s *kafkaSink) recover(ctx context.Context, partitions int) (map[string]int64, error) {
	s.recoverOnce.Do(func() {
		if s.recoverErr = s.fenceAll(ctx, max(1, partitions)); s.recoverErr == nil {
			s.markers, s.recoverErr = s.loadMarkers(ctx)
		}
	})
	return s.markers, s.recoverErr
}

// fenceAll initializes every partition's transactional id with a short-lived producer: the
// zombies of an earlier run are fenced and their open transactions aborted.
func (s *kafkaSink) fenceAll(ctx context.Context, partitions int) error {
	errs := make(chan error, partitions)
	for p := 0; p < partitions; p++ {
		go func() {
			cl, err := kgo.NewClient(append(s.producerOpts(), kgo.TransactionalID(s.txnPrefix+"-"+itoa(p)))...)
			if err != nil {
				errs <- sparkerr.IllegalArgument("Invalid Kafka producer configuration: %v", err).Wrap(err)
				return
			}
			defer cl.Close()
			if _, _, err := cl.ProducerID(ctx); err != nil {
				errs <- s.failure("initTransactions", err)
				return
			}
			errs <- nil
		}()
	}
	var first error
	for p := 0; p < partitions; p++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// loadMarkers reads the commit topic's committed markers (creating the topic, compacted with
// one partition, if missing). It first waits until every record the topic holds is decided
// (the last stable offset reaches the end offset): a transaction still open, of another
// query's sink, would otherwise hide the committed markers after it.
func (s *kafkaSink) loadMarkers(ctx context.Context) (map[string]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*s.timeout)
	defer cancel()
	admCl, err := kgo.NewClient(append(append([]kgo.Opt{}, s.clientOpts...), kgo.SeedBrokers(s.bootstrap...))...)
	if err != nil {
		return nil, sparkerr.IllegalArgument("Invalid Kafka client configuration: %v", err).Wrap(err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	cleanup := "compact"
	resp, err := adm.CreateTopic(ctx, 1, -1, map[string]*string{"cleanup.policy": &cleanup}, s.commitTopic)
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) && !errors.Is(resp.Err, kerr.TopicAlreadyExists) {
		return nil, s.failure("createTopic "+s.commitTopic, err)
	}
	if resp.Err != nil && !errors.Is(resp.Err, kerr.TopicAlreadyExists) {
		return nil, s.failure("createTopic "+s.commitTopic, resp.Err)
	}
	offset := func(list func(context.Context, ...string) (kadm.ListedOffsets, error)) (int64, error) {
		for {
			listed, err := list(ctx, s.commitTopic)
			if err != nil && !transientKafka(err) {
				return 0, s.failure("listOffsets "+s.commitTopic, err)
			}
			if l, ok := listed.Lookup(s.commitTopic, 0); err == nil && ok && l.Err == nil {
				return l.Offset, nil
			}
			select {
			case <-ctx.Done():
				// A partition error, or the cluster moving (a broker restarting), until the
				// deadline.
				if err == nil {
					err = ctx.Err()
				}
				return 0, s.failure("listOffsets "+s.commitTopic, err)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	end, err := offset(adm.ListEndOffsets)
	if err != nil {
		return nil, err
	}
	for {
		stable, err := offset(adm.ListCommittedOffsets)
		if err != nil {
			return nil, err
		}
		if stable >= end {
			break
		}
		select {
		case <-ctx.Done():
			return nil, s.failure("waiting for the open transactions of "+s.commitTopic+" to end", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	markers := map[string]int64{}
	if end == 0 {
		return markers, nil
	}
	rd, err := kgo.NewClient(append(append([]kgo.Opt{}, s.clientOpts...),
		kgo.SeedBrokers(s.bootstrap...), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(), kgo.FetchMaxWait(200*time.Millisecond),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{s.commitTopic: {0: kgo.NewOffset().AtStart()}}))...)
	if err != nil {
		return nil, s.failure("read "+s.commitTopic, err)
	}
	defer rd.Close()
	for next := int64(-1); next < end-1; {
		fetches := rd.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, s.failure("read "+s.commitTopic, err)
		}
		var ferr error
		fetches.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return nil, s.failure("read "+s.commitTopic, ferr)
		}
		fetches.EachRecord(func(r *kgo.Record) {
			// A record at or past end ends the read too: the records just before it may be
			// an aborted transaction's, which a read_committed reader never gets.
			next = max(next, r.Offset)
			if r.Offset >= end || r.Attrs.IsControl() {
				return
			}
			if e, err := strconv.ParseInt(string(r.Value), 10, 64); err == nil {
				markers[string(r.Key)] = max(markers[string(r.Key)], e)
			}
		})
	}
	return markers, nil
}
