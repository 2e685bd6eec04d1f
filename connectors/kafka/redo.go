package kafka

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// transientKafka reports whether an epoch's failure is the cluster being unreachable or
// moving (a broker restarting, a coordinator loading) rather than a definitive answer (fenced,
// not authorized, a bad record), so that the epoch can be settled and redone.
func transientKafka(err error) bool {
	var netErr net.Error
	switch {
	case err == nil:
		return false
	case errors.Is(err, kerr.ProducerFenced), errors.Is(err, kerr.InvalidProducerEpoch),
		errors.Is(err, kerr.TransactionalIDAuthorizationFailed), errors.Is(err, context.Canceled):
		return false
	case errors.As(err, &netErr), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	case errors.Is(err, kerr.NotCoordinator), errors.Is(err, kerr.CoordinatorNotAvailable),
		errors.Is(err, kerr.CoordinatorLoadInProgress), errors.Is(err, kerr.RequestTimedOut),
		errors.Is(err, kerr.NotLeaderForPartition), errors.Is(err, kerr.LeaderNotAvailable),
		errors.Is(err, kerr.NotEnoughReplicas), errors.Is(err, kerr.NotEnoughReplicasAfterAppend),
		// The coordinator still completing a transaction (settling an epoch: its first commit).
		errors.Is(err, kerr.ConcurrentTransactions),
		// Records that outlived the delivery timeout while the cluster was unreachable: the
		// epoch's transaction is aborted and its records produced again.
		errors.Is(err, kgo.ErrRecordTimeout):
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "unable to dial") || strings.Contains(msg, "outcome is unconfirmed")
}

// defaultRedoMaxBytes is exactlyOnce.redoMaxBytes's default: the bytes of an open epoch's
// records a partition keeps to redo the epoch.
const defaultRedoMaxBytes = 64 << 20

// keep keeps the open epoch's records to redo it (redoEpoch) while their bytes stay within the
// sink's redoMaxBytes; past it the epoch's records are let go and the epoch is unkept (it cannot
// be redone; a transient commit failure fails the query, whose restart replays the epoch).
func (o *kafkaOperator) keep(records []*kgo.Record) {
	if o.unkept {
		return
	}
	for _, r := range records {
		o.epochBytes += recordBytes(r)
	}
	if o.epochBytes > o.sink.redoMaxBytes {
		o.epochRecords, o.epochBytes, o.unkept = nil, 0, true
		return
	}
	o.epochRecords = append(o.epochRecords, records...)
}

// forgetRecords drops the open epoch's kept records (the epoch is settled or aborted).
func (o *kafkaOperator) forgetRecords() {
	o.epochRecords, o.epochBytes, o.unkept = nil, 0, false
}

// keptRecordOverhead is what keeping a record costs besides its bytes: the record itself and
// its slot in the kept slice (many small records would otherwise outgrow the cap many times).
const keptRecordOverhead = int64(unsafe.Sizeof(kgo.Record{}) + unsafe.Sizeof(&kgo.Record{}))

// recordBytes is the memory a kept record holds: its key, value and headers, and the record.
func recordBytes(r *kgo.Record) int64 {
	n := len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += len(h.Key) + len(h.Value) + int(unsafe.Sizeof(h))
	}
	return int64(n) + keptRecordOverhead
}

// redoOnce settles an epoch whose commit failed transiently through the client (the fallback
// of settleStep where a coordinator predates KIP-890 part 2): it aborts the epoch's transaction
// (after an unconfirmed commit the client re-initializes its producer id, which aborts the
// transaction if the commit never reached the cluster), reads the committed markers, and
// unless the epoch's marker is among them (the commit had landed) produces the epoch's
// records and marker again in a new transaction. The transaction counts as open until the
// markers are read: an attempt failing before that is followed by one that aborts (a no-op
// once aborted) and reads them again, never by producing the epoch again unread (its commit
// may have landed).
func (o *kafkaOperator) redoOnce(ctx context.Context, epoch int64) error {
	_ = o.cl.AbortBufferedRecords(ctx)
	if err := o.cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
		return err
	}
	_ = o.sent.take()
	markers, err := o.sink.loadMarkers(ctx)
	if err != nil {
		return err
	}
	o.inTxn, o.ending = false, false
	if e, ok := markers[o.txnID]; ok && e >= epoch {
		return nil
	}
	return o.produceAgain(ctx, epoch)
}

// produceAgain produces the epoch's kept records and its marker in a new transaction and
// commits it.
func (o *kafkaOperator) produceAgain(ctx context.Context, epoch int64) error {
	if o.unkept {
		return errUnkept
	}
	if err := o.begin(ctx); err != nil {
		return err
	}
	for _, r := range o.epochRecords {
		// A copy: a replaced client may still be finishing the original (franz-go writes a
		// record's offset and producer fields when it reports its outcome). franz-go stamps a
		// record when first produced and times its delivery from that stamp: a record produced
		// again is a new send.
		again := *r
		again.Timestamp = time.Time{}
		o.cl.Produce(ctx, &again, o.sent.record)
	}
	return o.commitEpoch(ctx, epoch)
}
