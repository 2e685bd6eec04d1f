package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/sparkerr"
)

// Riding out a broker restart: the Java consumer and admin client retry transient errors (a
// partition without a leader while one is elected, a partition's metadata not there yet right
// after a topic's creation or a broker's restart, a refused or reset connection) until their
// timeouts, and so does the Kafka source: offset listings until default.api.timeout.ms, fetches
// until kafkaConsumer.pollTimeoutMs passes without progress. Then the read fails with Kafka's
// TimeoutException naming the last error.

// The wait between attempts: kafkaRetryFirst, doubling up to kafkaRetryMax.
const (
	kafkaRetryFirst = 50 * time.Millisecond
	kafkaRetryMax   = time.Second
)

// errKafkaPartitionsMissing: a listing lacks partitions the source reads (their topic is
// unknown to the broker for now).
var errKafkaPartitionsMissing = fmt.Errorf("partitions the query reads are missing from the listing: %w",
	kerr.UnknownTopicOrPartition)

// retriableKafka reports whether err is transient: a retriable Kafka error code
// (kerr.IsRetriable: LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION,
// ...), a broker that refused, reset or closed the connection, or a request that timed out.
// Authentication, authorization and configuration errors are not.
func retriableKafka(err error) bool {
	var netErr net.Error
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, kgo.ErrClientClosed):
		return false
	case kerr.IsRetriable(err):
		return true
	case errors.As(err, new(*kerr.Error)):
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &netErr)
}

// retryKafka runs f until it returns nil or an error that is not transient, waiting between
// attempts, while ctx lasts; it returns f's last error.
func retryKafka(ctx context.Context, f func() error) error {
	wait := kafkaRetryFirst
	for {
		err := f()
		if !retriableKafka(err) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, kafkaRetryMax)
	}
}

// retriesExhausted is the error of a call that kept failing with transient errors until its
// timeout: Kafka's TimeoutException naming the last error (err as it is when not transient).
func (s *kafkaStream) retriesExhausted(call string, timeout time.Duration, setting string, err error) error {
	if !retriableKafka(err) {
		return err
	}
	return sparkerr.Newf(kafkaTimeoutException, "", "",
		"Timed out after %s (%s) retrying Kafka %s against kafka.bootstrap.servers %s; last error: %v",
		timeout, setting, call, joinServers(s.opts.bootstrap), err).Wrap(err)
}

// missingPartitions reports whether a listing lacks any of want's partitions.
func missingPartitions(listed, want kafkaOffsets) bool {
	for t, ps := range want {
		for p := range ps {
			if _, ok := listed[t][p]; !ok {
				return true
			}
		}
	}
	return false
}
