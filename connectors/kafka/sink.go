package kafka

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// kafkaSink writes each epoch's output rows as Kafka records: value (required), key, topic (or
// the topic option, which wins), partition and headers columns, as Spark's KafkaWriter. The
// producers take the user's kafka.* options through the translation shared with the Kafka
// source (KafkaClientOpts: security, acks, compression, timeouts, …).
//
// Every sink partition has its own producer. In append and update modes it produces rows as
// they arrive (the epoch's inserted rows; the epoch need not be known yet); complete mode
// produces its whole result table at the barrier. At-least-once (exactlyOnce=false): the
// partition flushes at the barrier before the barrier goes on, so the checkpoint commits an
// epoch only once its records are acknowledged; a crash before the checkpoint commit replays
// the epoch and writes its records again. In continuous processing rows thus reach Kafka within
// the producer's linger of arriving, whatever the checkpoint interval.
//
// Exactly-once (the default): the partition's producer is transactional, with transactional id
// <prefix>-<partition>, the prefix being kafka.transactional.id if given, otherwise
// "weir-<query id>" (the query id lives in the checkpoint, so it is stable across restarts). The
// first row of an epoch begins a transaction (the barrier does when the epoch has none), its
// rows are produced into it as they arrive, and the barrier of epoch N produces one marker
// record (key: the transactional id, value: N) to the commit topic (exactlyOnce.commitTopic,
// default __weir_kafka_sink_commits, created compacted with one partition if missing), then
// commits the transaction. The marker commits atomically with the rows, so the newest
// committed marker of a transactional id is exactly the last epoch whose rows are in Kafka; a
// replayed epoch N ≤ that epoch (a crash after the Kafka commit and before the checkpoint
// commit) is aborted instead (read_committed readers never see its rows). The partition keeps
// the open epoch's records until it commits, up to exactlyOnce.redoMaxBytes (default 64 MiB of
// records: keys, values, headers and the records themselves). When the epoch fails transiently
// (the cluster unreachable or moving, e.g. a broker restarting; settle.go) the partition
// settles it, retrying for up to twice the delivery timeout (counted from the failure) before
// the query fails: it ends the epoch's transaction itself at the producer id and epoch the
// transaction began with — a commit that was sent with every record acknowledged is sent
// again (under KIP-890 the coordinator answers a retried EndTxn as it answered the first, so
// a commit that had landed is not repeated), otherwise the transaction is aborted — then
// replaces the partition's producer and, if the epoch was aborted, produces its kept records
// again in a new transaction. (Coordinators without KIP-890 part 2 settle through the client:
// abort, read the markers, produce again unless the epoch's marker landed; redo.go.) An
// epoch whose records outgrow exactlyOnce.redoMaxBytes is not kept (its memory is bounded by
// the cap): it can still be settled once its commit was sent, but a transient failure before
// that fails the query at once, and the restart replays the epoch from the checkpoint, still
// exactly once thanks to the markers. 0 keeps no epoch. Settling covers append and update
// output, whose rows are produced as they arrive; complete mode writes its table at the
// barrier and commits it there, so a commit left unknown fails the query and the restart
// replays the epoch from the checkpoint (exactly once, by the markers).
//
// Before any partition of a run produces, the sink fences the transactional ids of all its
// partitions (InitProducerID bumps each id's epoch: a zombie of an earlier run can no longer
// commit, and its open transaction is aborted), then waits until every marker written before is
// decided (the commit topic's last stable offset reaches its end offset) and reads the
// committed ones: no zombie commit can land after the read, and no open transaction hides a
// committed marker behind it (recover, records.go). Readers, a Weir Kafka source
// included, must read with (kafka.)isolation.level=read_committed to see only committed epochs;
// the Kafka source then bounds its epochs by the last stable offset. The scheme assumes the
// epoch is replayed with the same sink parallelism (the same rows reach the same partition),
// which holds for a query restarted from its checkpoint.
type kafkaSink struct {
	env         sinks.Env
	bootstrap   []string
	topic       string // the topic option ("" if none)
	cols        kafkaSinkColumns
	exactlyOnce bool
	txnPrefix   string
	commitTopic string
	timeout     time.Duration
	// redoMaxBytes caps the bytes of an open epoch's records kept to redo it
	// (exactlyOnce.redoMaxBytes).
	redoMaxBytes int64
	written      sinks.RowCounter
	// txnV2: whether the cluster runs transactions under KIP-890 part 2 (0 not known yet, 1
	// no, 2 yes; endTxnRetriable).
	txnV2 atomic.Int32
	// clientOpts are the kafka.* producer options translated for franz-go (security,
	// timeouts, acks, compression, …), shared with the Kafka source.
	clientOpts []kgo.Opt

	// recovered: the exactly-once sink's start of a run (recover), once for all partitions.
	recoverOnce sync.Once
	markers     map[string]int64 // transactional id → last epoch committed to Kafka
	recoverErr  error
}

// kafkaSinkColumns are the input column indexes (-1: absent) and types.
type kafkaSinkColumns struct {
	value, key, topic, partition, headers int
}

var kafkaForbiddenSink = map[string]string{
	"key.serializer":      "Kafka option 'key.serializer' is not supported as keys are serialized with ByteArraySerializer.",
	"value.serializer":    "Kafka option 'value.serializer' is not supported as value are serialized with ByteArraySerializer.",
	"interceptor.classes": "Kafka option 'interceptor.classes' is not supported.",
}

func newKafkaSink(env sinks.Env, options map[string]string) (sinks.Sink, error) {
	opts := sinks.NewOptions(options)
	if opts["checkpointlocation"] == "" {
		return nil, sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1197", "",
			`checkpointLocation must be specified either through option("checkpointLocation", ...) or `+
				`SparkSession.conf.set("spark.sql.streaming.checkpointLocation", ...)`).
			WithParams("config", "spark.sql.streaming.checkpointLocation")
	}
	s, params, err := parseKafkaSink(env, opts)
	if err != nil {
		return nil, err
	}
	// Under a continuous trigger the sink is at-least-once by default, as Spark's: rows reach
	// Kafka as they arrive and read_committed readers need not wait for the checkpoint
	// interval's commit. An explicit exactlyOnce option wins.
	if s.exactlyOnce, err = opts.BoolOr("exactlyOnce", !env.Continuous); err != nil {
		return nil, err
	}
	if t := strings.TrimSpace(opts["exactlyonce.committopic"]); t != "" {
		s.commitTopic = t
	}
	redoMax, err := opts.IntOr("exactlyOnce.redoMaxBytes", defaultRedoMaxBytes)
	if err != nil {
		return nil, err
	}
	if redoMax < 0 {
		return nil, sparkerr.IllegalArgument("exactlyOnce.redoMaxBytes must be non-negative, got %d", redoMax)
	}
	s.redoMaxBytes = int64(redoMax)
	s.txnPrefix = params["transactional.id"]
	if s.txnPrefix == "" {
		s.txnPrefix = transactionalPrefix(env.QueryID, env.Files, opts["checkpointlocation"])
	}
	return s, nil
}

// newKafkaBatchSink is df.write.format("kafka"): the rows are produced by a plain
// (idempotent, non-transactional) producer per partition and acknowledged before the write
// returns, as Spark's batch KafkaWriter does. Spark allows only the append and error-if-exists
// (default) save modes.
func newKafkaBatchSink(_ context.Context, env sinks.Env, mode sinks.SaveMode, options map[string]string) (sinks.BatchSink, error) {
	if mode == sinks.SaveOverwrite || mode == sinks.SaveIgnore {
		name := map[sinks.SaveMode]string{sinks.SaveOverwrite: "Overwrite", sinks.SaveIgnore: "Ignore"}[mode]
		return nil, sparkerr.New(sparkerr.AnalysisException, "", "", "Save mode "+name+
			" not allowed for Kafka. Allowed save modes are Append and ErrorIfExists (default).")
	}
	s, _, err := parseKafkaSink(env, sinks.NewOptions(options))
	if err != nil {
		return nil, err
	}
	return sinks.BatchAdapter{Sink: s}, nil
}

// transactionalPrefix is the exactly-once sink's transactional id prefix: derived from the
// query id, which the checkpoint keeps across restarts, so every run of the query uses the same
// ids and a restarted run's producers fence the old run's zombies. Without a query id (a sink
// built outside a query) it derives from the checkpoint location, resolved as the query
// resolves it (files.Resolve: a link and its target give the same ids). The sink itself reads
// and writes nothing there.
func transactionalPrefix(queryID string, files *fileaccess.Policy, checkpoint string) string {
	if queryID != "" {
		return "weir-" + queryID
	}
	dir, err := files.Resolve(checkpoint)
	if err != nil {
		dir = checkpoint
	}
	sum := sha256.Sum256([]byte(dir))
	return "weir-" + hex.EncodeToString(sum[:8])
}

// parseKafkaSink reads the options streaming and batch writes share (kafka.* producer
// options, topic) and validates the columns. It returns the kafka.* parameters (prefix
// removed).
func parseKafkaSink(env sinks.Env, opts sinks.Options) (*kafkaSink, map[string]string, error) {
	checked, err := CheckKafkaStoreFiles(env.Files, opts)
	if err != nil {
		return nil, nil, err
	}
	opts = checked
	params := map[string]string{}
	for k, v := range opts {
		if strings.HasPrefix(k, "kafka.") {
			key := strings.TrimPrefix(k, "kafka.")
			if msg, ok := kafkaForbiddenSink[key]; ok {
				return nil, nil, sparkerr.IllegalArgument("%s", msg)
			}
			params[key] = v
		}
	}
	servers := strings.TrimSpace(params["bootstrap.servers"])
	if servers == "" {
		return nil, nil, sparkerr.IllegalArgument("Option 'kafka.bootstrap.servers' must be specified for configuring Kafka producer")
	}
	clientOpts, err := KafkaClientOpts(opts)
	if err != nil {
		return nil, nil, err
	}
	s := &kafkaSink{env: env, topic: strings.TrimSpace(opts["topic"]), timeout: 30 * time.Second,
		commitTopic: "__weir_kafka_sink_commits", clientOpts: clientOpts}
	for _, b := range strings.Split(servers, ",") {
		if b = strings.TrimSpace(b); b != "" {
			s.bootstrap = append(s.bootstrap, b)
		}
	}
	cols, err := kafkaColumns(env.Schema, s.topic != "")
	if err != nil {
		return nil, nil, err
	}
	s.cols = cols
	if v, ok := params["delivery.timeout.ms"]; ok {
		n, err := sinks.NewOptions(map[string]string{"t": v}).IntOr("t", 30000)
		if err != nil {
			return nil, nil, err
		}
		s.timeout = time.Duration(n) * time.Millisecond
	}
	return s, params, nil
}

// kafkaColumns validates the input columns as Spark's KafkaWriter.validateQuery does.
func kafkaColumns(schema sqltypes.Schema, topicOption bool) (kafkaSinkColumns, error) {
	c := kafkaSinkColumns{value: -1, key: -1, topic: -1, partition: -1, headers: -1}
	for i, f := range schema {
		switch strings.ToLower(f.Name) {
		case "value":
			c.value = i
		case "key":
			c.key = i
		case "topic":
			c.topic = i
		case "partition":
			c.partition = i
		case "headers":
			c.headers = i
		}
	}
	analysis := func(msg string) error { return sparkerr.New(sparkerr.AnalysisException, "", "", msg) }
	if c.topic < 0 && !topicOption {
		return c, analysis("topic option required when no 'topic' attribute is present. Use the topic option for setting a topic.")
	}
	if c.topic >= 0 && schema[c.topic].Type.Kind != sqltypes.String {
		return c, analysis("Topic type must be a String")
	}
	if c.value < 0 {
		return c, analysis("Required attribute 'value' not found")
	}
	if k := schema[c.value].Type.Kind; k != sqltypes.String && k != sqltypes.Binary {
		return c, analysis("value attribute type must be a String or Binary")
	}
	if c.key >= 0 {
		if k := schema[c.key].Type.Kind; k != sqltypes.String && k != sqltypes.Binary {
			return c, analysis("key attribute type must be a String or Binary")
		}
	}
	if c.partition >= 0 && schema[c.partition].Type.Kind != sqltypes.Integer {
		return c, analysis("partition attribute type must be an Int")
	}
	if c.headers >= 0 {
		t := schema[c.headers].Type
		ok := t.Kind == sqltypes.Array && t.Elem.Kind == sqltypes.Struct && len(t.Elem.Fields) == 2 &&
			t.Elem.Fields[0].Type.Kind == sqltypes.String && t.Elem.Fields[1].Type.Kind == sqltypes.Binary
		if !ok {
			return c, analysis("headers attribute type must be an array of struct<key: string, value: binary>")
		}
	}
	return c, nil
}

// Description implements Sink.
func (s *kafkaSink) Description() string {
	if s.topic != "" {
		return "KafkaTable[" + s.topic + "]"
	}
	return "KafkaTable"
}

// Parallelism implements Sink: every upstream partition produces its own rows.
func (s *kafkaSink) Parallelism(upstream int) int { return max(1, upstream) }

// OutputRows implements Sink.
func (s *kafkaSink) OutputRows() int64 { return s.written.Take() }

// NewOperator implements Sink.
func (s *kafkaSink) NewOperator(env flow.Env) (flow.Operator, error) {
	o := &kafkaOperator{sink: s, env: env, log: sinks.NewChangelog(s.env.Mode, env.Mem), committed: -1,
		onArrival: s.env.Mode != flow.OutputComplete, sent: &sendErrors{}}
	if s.exactlyOnce {
		o.txnID = s.txnPrefix + "-" + itoa(env.Partition)
	}
	return o, nil
}

// kafkaOperator is one sink partition.
type kafkaOperator struct {
	sink      *kafkaSink
	env       flow.Env
	log       *sinks.Changelog // complete mode: the result table
	txnID     string           // "" for at-least-once
	cl        *kgo.Client
	committed int64 // exactly-once: last epoch committed to Kafka (-1 none); at-least-once: last epoch written
	// onArrival: append and update modes produce an epoch's rows as they arrive (in the
	// epoch's transaction when exactly-once); complete mode writes its table at the barrier.
	onArrival bool
	inTxn     bool // exactly-once: the open epoch's transaction has begun
	// txnPID, txnEpoch: the producer id and epoch the open transaction began with (settling
	// an unconfirmed commit ends it at them; settle.go); ending: its commit was sent
	// with every record acknowledged.
	txnPID    int64
	txnEpoch  int16
	ending    bool
	recovered bool  // exactly-once: this run's markers were read (start)
	produced  int64 // records produced in the open epoch
	// epochRecords: exactly-once, the open epoch's records, kept until it commits to redo
	// it (redoEpoch) while their bytes (epochBytes) stay within the sink's redoMaxBytes;
	// unkept: the epoch outgrew the cap, its records are no longer kept and it cannot be redone.
	epochRecords []*kgo.Record
	epochBytes   int64
	unkept       bool
	// sent keeps the first failure of a record the partition's current client produced (a
	// replaced client's late failures go to the one it had; closeProducer).
	sent *sendErrors
}

// sendErrors keeps the first failure the producer reported for a record.
type sendErrors struct {
	mu    sync.Mutex
	first error
}

func (e *sendErrors) record(_ *kgo.Record, err error) {
	if err == nil {
		return
	}
	e.mu.Lock()
	if e.first == nil {
		e.first = err
	}
	e.mu.Unlock()
}

// take returns the first failure since the last take and forgets it.
func (e *sendErrors) take() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	err := e.first
	e.first = nil
	return err
}

// Process implements flow.Operator: append and update modes produce the batch's inserted rows
// now (beginning the epoch's transaction first when exactly-once); complete mode buffers.
func (o *kafkaOperator) Process(ctx context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	if !o.onArrival {
		o.log.Add(rec)
		return nil
	}
	if rec.NumRows() == 0 {
		return nil
	}
	ins, err := sinks.Inserts(o.env.Mem, rec)
	if err != nil {
		return err
	}
	defer ins.Release()
	if ins.NumRows() == 0 {
		return nil
	}
	records, err := o.sink.records([]arrow.RecordBatch{ins})
	if err != nil {
		return err
	}
	if err := o.start(ctx); err != nil {
		return err
	}
	if err := o.begin(ctx); err != nil {
		return o.sink.failure("beginTransaction", err)
	}
	for _, r := range records {
		o.cl.Produce(ctx, r, o.sent.record)
	}
	if o.txnID != "" {
		o.keep(records)
	}
	o.produced += int64(len(records))
	return nil
}

// Barrier implements flow.BarrierHandler: the epoch's records are acknowledged (and, when
// exactly-once, committed in a transaction with the epoch's marker) before the barrier goes on.
func (o *kafkaOperator) Barrier(ctx context.Context, epoch int64, _ flow.Emitter) error {
	if err := o.start(ctx); err != nil {
		o.log.Discard()
		o.abort()
		return err
	}
	if epoch <= o.committed {
		// Already in Kafka (a replay after a crash between the Kafka and checkpoint commits):
		// the rows produced for it are aborted; complete mode still folds the epoch's changes
		// into its table.
		o.abort()
		recs, err := o.log.Commit()
		sinks.ReleaseRecords(recs)
		return err
	}
	taskCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, o.sink.timeout+10*time.Second)
	defer cancel()
	if o.onArrival {
		if err := o.finishEpoch(ctx, taskCtx, epoch); err != nil {
			return err
		}
	} else {
		recs, err := o.log.Commit()
		if err != nil {
			return err
		}
		records, err := o.sink.records(recs)
		sinks.ReleaseRecords(recs)
		if err != nil {
			return err
		}
		if err := o.write(ctx, epoch, records); err != nil {
			return err
		}
		o.produced = int64(len(records))
	}
	o.committed = epoch
	o.sink.written.Add(o.produced)
	o.produced = 0
	return nil
}

// finishEpoch flushes the records produced for the epoch as they arrived and, when
// exactly-once, commits them with the epoch's marker (an epoch without rows commits just its
// marker) within ctx. A commit failing transiently is redone (when the epoch's records were
// kept) within its own deadline, derived from the task's context taskCtx.
func (o *kafkaOperator) finishEpoch(ctx, taskCtx context.Context, epoch int64) error {
	if o.txnID == "" {
		if err := o.cl.Flush(ctx); err != nil {
			return o.sink.failure("flush", err)
		}
		if err := o.sent.take(); err != nil {
			return o.sink.failure("send", err)
		}
		return nil
	}
	err := o.commitEpoch(ctx, epoch)
	if err != nil && transientKafka(err) && (o.ending || !o.unkept) {
		err = o.settleEpoch(taskCtx, epoch, err)
	}
	o.forgetRecords()
	if err != nil {
		o.abort()
		return o.sink.failure("commitTransaction", err)
	}
	return nil
}

// commitEpoch produces the epoch's marker into its transaction (beginning one if the epoch had
// no rows), waits for every record and commits.
func (o *kafkaOperator) commitEpoch(ctx context.Context, epoch int64) error {
	if err := o.begin(ctx); err != nil {
		return err
	}
	o.cl.Produce(ctx, o.marker(epoch), o.sent.record)
	if err := o.cl.Flush(ctx); err != nil {
		return err
	}
	if err := o.sent.take(); err != nil {
		return err
	}
	o.ending = true
	if err := o.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return err
	}
	o.inTxn, o.ending = false, false
	return nil
}

// begin begins the epoch's transaction unless it has begun (or the sink is at-least-once), and
// notes the producer id and epoch it runs at.
func (o *kafkaOperator) begin(ctx context.Context) error {
	if o.txnID == "" || o.inTxn {
		return nil
	}
	if err := o.cl.BeginTransaction(); err != nil {
		return err
	}
	id, epoch, err := o.cl.ProducerID(ctx)
	if err != nil {
		_ = o.cl.EndTransaction(ctx, kgo.TryAbort)
		return err
	}
	o.inTxn, o.ending, o.txnPID, o.txnEpoch = true, false, id, epoch
	return nil
}

// abort drops the open epoch's records: a transaction is aborted; at-least-once records already
// produced stay (they are at least once).
func (o *kafkaOperator) abort() {
	o.produced = 0
	o.forgetRecords()
	if !o.inTxn || o.cl == nil {
		return
	}
	o.inTxn, o.ending = false, false
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = o.cl.AbortBufferedRecords(ctx)
	_ = o.cl.EndTransaction(ctx, kgo.TryAbort)
	_ = o.sent.take()
}

func (o *kafkaOperator) marker(epoch int64) *kgo.Record {
	return &kgo.Record{Topic: o.sink.commitTopic, Partition: 0, Key: []byte(o.txnID), Value: []byte(itoa64(epoch))}
}

// start opens the producer and, when exactly-once, loads the last committed epoch.
func (o *kafkaOperator) start(ctx context.Context) error {
	if o.cl != nil {
		return nil
	}
	opts := o.sink.producerOpts()
	if o.txnID != "" {
		opts = append(opts, kgo.TransactionalID(o.txnID))
	}
	if o.txnID != "" && !o.recovered {
		// Before this run produces anything, every partition's transactional id is fenced
		// and the committed markers are read (once for the sink).
		markers, err := o.sink.recover(ctx, o.env.Partitions)
		if err != nil {
			return err
		}
		o.committed = -1
		if e, ok := markers[o.txnID]; ok {
			o.committed = e
		}
		o.recovered = true
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return sparkerr.IllegalArgument("Invalid Kafka producer configuration: %v", err).Wrap(err)
	}
	if o.txnID != "" {
		if _, _, err := cl.ProducerID(ctx); err != nil {
			cl.Close()
			return o.sink.failure("initTransactions", err)
		}
	}
	o.cl = cl
	return nil
}

// producerOpts are the options of every producer of the sink: Weir's defaults, then the
// user's kafka.* options (which win), then what the sink needs. The defaults favour latency:
// records produced as rows arrive linger 1 ms (franz-go's default is 10 ms; linger.ms sets
// it), and a transaction whose predecessor is still completing is retried after 1 ms rather
// than franz-go's 20 ms (the commit of one epoch is often still in flight when the next begins).
func (s *kafkaSink) producerOpts() []kgo.Opt {
	opts := []kgo.Opt{kgo.DialTimeout(10 * time.Second), kgo.RetryTimeout(s.timeout),
		kgo.RecordDeliveryTimeout(s.timeout), kgo.TransactionTimeout(transactionTimeout(s.timeout)),
		kgo.ProducerLinger(time.Millisecond), kgo.ConcurrentTransactionsBackoff(time.Millisecond)}
	opts = append(opts, s.clientOpts...)
	if kafkaClientLogger != nil {
		opts = append(opts, kgo.WithLogger(kafkaClientLogger))
	}
	return append(opts, kgo.SeedBrokers(s.bootstrap...),
		kgo.RecordPartitioner(kgo.BasicConsistentPartitioner(kafkaPartitioner)), kgo.AllowAutoTopicCreation())
}

// transactionTimeout is the exactly-once producers' default transaction timeout for a delivery
// timeout: 60 s as Java's producer, and at least three times the delivery timeout, so that an
// epoch whose commit is being settled after a broker restart (for up to twice the delivery
// timeout, settle.go) still has its transaction open rather than aborted by the
// coordinator; at most 15 min (the broker's default transaction.max.timeout.ms).
// kafka.transaction.timeout.ms sets it.
func transactionTimeout(delivery time.Duration) time.Duration {
	return min(max(60*time.Second, 3*delivery), 15*time.Minute)
}

// kafkaPartitioner keeps a record's partition when the row gave one (≥ 0); otherwise it hashes
// the key as Kafka's default partitioner does, or spreads keyless records round-robin.
func kafkaPartitioner(topic string) func(*kgo.Record, int) int {
	hashed := kgo.StickyKeyPartitioner(nil).ForTopic(topic)
	var next atomic.Int64
	return func(r *kgo.Record, n int) int {
		if r.Partition >= 0 {
			return int(r.Partition)
		}
		if r.Key != nil {
			return hashed.Partition(r, n)
		}
		return int(next.Add(1) % int64(n))
	}
}

// write produces the records of an epoch at its barrier (complete mode) and waits for them.
func (o *kafkaOperator) write(ctx context.Context, epoch int64, records []*kgo.Record) error {
	if o.txnID == "" {
		return o.produceAll(ctx, records)
	}
	if err := o.begin(ctx); err != nil {
		return o.sink.failure("beginTransaction", err)
	}
	err := o.produceAll(ctx, append(records, o.marker(epoch)))
	if err == nil {
		if err = o.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			err = o.sink.failure("commitTransaction", err)
		}
	}
	if err != nil {
		abortCtx, cancelAbort := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancelAbort()
		_ = o.cl.AbortBufferedRecords(abortCtx)
		_ = o.cl.EndTransaction(abortCtx, kgo.TryAbort)
		o.inTxn = false
		return err
	}
	o.inTxn = false
	return nil
}

func (o *kafkaOperator) produceAll(ctx context.Context, records []*kgo.Record) error {
	var mu sync.Mutex
	var first error
	for _, r := range records {
		o.cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		})
	}
	if err := o.cl.Flush(ctx); err != nil {
		return o.sink.failure("flush", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if first != nil {
		return o.sink.failure("send", first)
	}
	return nil
}

// failure is a producer failure as the Kafka client reports it.
func (s *kafkaSink) failure(call string, err error) *sparkerr.Error {
	if se, ok := sparkerr.As(err); ok {
		return se
	}
	if se := KafkaSecurityError(err, s.bootstrap); se != nil {
		return se
	}
	if strings.Contains(err.Error(), "deadline") || strings.Contains(err.Error(), "dial") {
		return sparkerr.Newf("org.apache.kafka.common.errors.TimeoutException", "", "", "Kafka %s timed out: %v", call, err).Wrap(err)
	}
	return sparkerr.Newf("org.apache.kafka.common.KafkaException", "", "", "Kafka %s failed: %v", call, err).Wrap(err)
}

// EndOfData implements flow.EndOfDataHandler: rows after the last barrier belong to no epoch
// (an open transaction is aborted).
func (o *kafkaOperator) EndOfData(context.Context, flow.Emitter) error {
	o.abort()
	o.log.Release()
	return nil
}

// Close implements flow.Closer.
// An open transaction (a query stopped mid-epoch) is aborted rather than left to time out, which
// would hold read_committed readers of the topic back until then.
func (o *kafkaOperator) Close() {
	o.abort()
	o.log.Release()
	if o.cl != nil {
		o.cl.Close()
		o.cl = nil
	}
}

// kafkaClientLogger, when set (by a test diagnosing the producers), logs the sink producers'
// franz-go clients.
var kafkaClientLogger kgo.Logger

func itoa(n int) string { return itoa64(int64(n)) }

func itoa64(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
