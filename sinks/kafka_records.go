package sinks

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/expr"
	"github.com/weirhq/weir/sparkerr"
)

// records turns output rows into Kafka records (Partition -1: the partitioner chooses).
func (s *kafkaSink) records(recs []arrow.RecordBatch) ([]*kgo.Record, error) {
	schema := s.env.Schema
	var out []*kgo.Record
	for _, rec := range recs {
		for i := 0; i < int(rec.NumRows()); i++ {
			r := &kgo.Record{Topic: s.topic, Partition: -1}
			if r.Topic == "" {
				t, _ := expr.ValueAt(rec.Column(s.cols.topic), i, schema[s.cols.topic].Type).(string)
				if t == "" {
					return nil, sparkerr.New(illegalStateJava, "", "",
						"Unable to write to Kafka: the topic of a row is null and no topic option is set")
				}
				r.Topic = t
			}
			r.Value = bytesOf(expr.ValueAt(rec.Column(s.cols.value), i, schema[s.cols.value].Type))
			if s.cols.key >= 0 {
				r.Key = bytesOf(expr.ValueAt(rec.Column(s.cols.key), i, schema[s.cols.key].Type))
			}
			if s.cols.partition >= 0 {
				if p, ok := expr.ValueAt(rec.Column(s.cols.partition), i, schema[s.cols.partition].Type).(int32); ok {
					r.Partition = p
				}
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
			if err != nil {
				return 0, s.failure("listOffsets "+s.commitTopic, err)
			}
			if l, ok := listed.Lookup(s.commitTopic, 0); ok && l.Err == nil {
				return l.Offset, nil
			}
			select {
			case <-ctx.Done():
				return 0, s.failure("listOffsets "+s.commitTopic, ctx.Err())
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
			if r.Offset >= end {
				return
			}
			next = max(next, r.Offset)
			if r.Attrs.IsControl() {
				return
			}
			if e, err := strconv.ParseInt(string(r.Value), 10, 64); err == nil {
				markers[string(r.Key)] = max(markers[string(r.Key)], e)
			}
		})
	}
	return markers, nil
}
