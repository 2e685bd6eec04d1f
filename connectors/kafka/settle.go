package kafka

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// errUnkept: an epoch whose records outgrew exactlyOnce.redoMaxBytes cannot be produced again.
var errUnkept = errors.New("the epoch's records were not kept (exactlyOnce.redoMaxBytes), so it cannot be produced again")

// settleEpoch settles an exactly-once epoch whose commit failed transiently (first), retrying
// for twice the sink's timeout from now (ctx is the task's context, not the barrier's commit
// deadline, which the failed commit has mostly spent). It returns the last failure if the
// epoch could not be settled.
//
// Why not through the client: after a commit whose outcome is unconfirmed, franz-go recovers
// by re-initializing its producer id at its current epoch (InitProducerID with the expected
// epoch, KIP-360). Under KIP-890 part 2 (transaction.version 2, the default of Kafka 4) the
// coordinator bumps the epoch at every EndTxn; a commit that landed leaves it one above the
// client's. A live coordinator accepts the re-initialization as a retry (its last epoch is the
// client's), but one that reloaded the transaction state (a broker restart: the commit is
// written to the transaction log, then the coordinator moves before answering) has forgotten
// the last epoch (the transaction log does not keep it) and answers PRODUCER_FENCED, failing
// the query. EndTxn itself is idempotent under KIP-890 part 2: the coordinator accepts a retry
// at the epoch just below its own and answers it as it answered the first. So settleStep
// ends the transaction itself, at the producer id and epoch it began with, and then replaces
// the client (its producer id is unusable), as a restarted producer would.
func (o *kafkaOperator) settleEpoch(ctx context.Context, epoch int64, first error) error {
	ctx, cancel := context.WithTimeout(ctx, 2*o.sink.timeout)
	defer cancel()
	err := first
	landed := false
	for err != nil && transientKafka(err) {
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
		err = o.settleStep(ctx, epoch, &landed)
	}
	return err
}

// settleStep is one attempt of settleEpoch. An open transaction is ended at its own producer
// id and epoch: committed if its commit was sent with every record acknowledged (the answer
// is the same whether that commit had landed or not), aborted otherwise. landed records that
// the epoch's commit is in. Then the client is replaced and, unless the epoch landed, its
// records are produced again and committed. A coordinator without KIP-890 part 2 settles
// through the client and the markers instead (redoOnce).
func (o *kafkaOperator) settleStep(ctx context.Context, epoch int64, landed *bool) error {
	if o.inTxn {
		tv2, err := o.sink.endTxnRetriable(ctx, o)
		if err != nil {
			return err
		}
		if !tv2 {
			return o.redoOnce(ctx, epoch)
		}
		commit := o.ending
		if err := o.endTransactionAt(ctx, commit); err != nil {
			return err
		}
		o.inTxn, o.ending, *landed = false, false, commit
		o.closeProducer()
	}
	if o.cl == nil {
		if err := o.start(ctx); err != nil {
			return err
		}
	}
	if *landed {
		return nil
	}
	return o.produceAgain(ctx, epoch)
}

// endTransactionAt sends EndTxn for the open transaction at the producer id and epoch it
// began with, and returns the coordinator's answer (franz-go retries the coordinator's moves
// and the transport's errors within the request's retry timeout).
func (o *kafkaOperator) endTransactionAt(ctx context.Context, commit bool) error {
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID = o.txnID
	req.ProducerID, req.ProducerEpoch, req.Commit = o.txnPID, o.txnEpoch, commit
	resp, err := o.cl.Request(ctx, req)
	if err != nil {
		return err
	}
	return kerr.ErrorForCode(resp.(*kmsg.EndTxnResponse).ErrorCode)
}

// closeProducer closes the partition's client. Its buffered and in-flight records fail, and
// franz-go reports those failures asynchronously, possibly after Close returned: they go to the
// closed client's own sendErrors, not to the next client's transaction.
func (o *kafkaOperator) closeProducer() {
	if o.cl == nil {
		return
	}
	o.cl.Close()
	o.cl = nil
	o.sent = &sendErrors{}
}

// endTxnRetriable reports whether the cluster runs transactions under KIP-890 part 2
// (transaction.version ≥ 2 finalized and EndTxn v5), where an EndTxn retry at the epoch just
// below the coordinator's is answered as the first attempt was. It asks the cluster once per
// sink, through the partition's client.
func (s *kafkaSink) endTxnRetriable(ctx context.Context, o *kafkaOperator) (bool, error) {
	if v := s.txnV2.Load(); v != 0 {
		return v == 2, nil
	}
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "weir", "1"
	resp, err := o.cl.Request(ctx, req)
	if err != nil {
		return false, err
	}
	versions := resp.(*kmsg.ApiVersionsResponse)
	if err := kerr.ErrorForCode(versions.ErrorCode); err != nil {
		return false, err
	}
	tv2 := false
	for _, f := range versions.FinalizedFeatures {
		if f.Name == "transaction.version" && f.MaxVersionLevel >= 2 {
			tv2 = true
		}
	}
	endTxn := false
	for _, k := range versions.ApiKeys {
		if k.ApiKey == int16(kmsg.EndTxn) && k.MaxVersion >= 5 {
			endTxn = true
		}
	}
	v := int32(1)
	if tv2 && endTxn {
		v = 2
	}
	s.txnV2.Store(v)
	return v == 2, nil
}
