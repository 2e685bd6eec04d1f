package socket

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Java exception classes the socket source raises.
const (
	connectException = "java.net.ConnectException"
	ioException      = "java.io.IOException"
)

// The "socket" stream source, Spark's TextSocketSourceProvider / TextSocketMicroBatchStream:
// UTF-8 lines read from a TCP server the source connects to when opened, for tutorials and
// tests (not replayable). Offsets are Spark's: the index of the newest line received, -1
// before the first. Reading (start, end] gives partition 0 the lines start+1..end in arrival
// order; the other numPartitions−1 partitions get nothing (Spark deals the lines round-robin,
// which would lose their order in Weir's concurrent gather). Lines read are dropped.
//
// A reader goroutine, owned by the source and stopped by Close, buffers lines with their
// arrival time. Once the peer closes the connection or reading fails, Latest still hands out
// the lines received before, and then fails with the reason, so the query fails with a clear
// message instead of waiting for lines that cannot come.

// DialTimeout bounds how long opening a socket source waits for the connection.
const DialTimeout = 5 * time.Second

var (
	socketSchemaRegular = sqltypes.Schema{
		{Name: "value", Type: sqltypes.StringType, Nullable: true},
	}
	socketSchemaTimestamp = sqltypes.Schema{
		{Name: "value", Type: sqltypes.StringType, Nullable: true},
		{Name: "timestamp", Type: sqltypes.TimestampType, Nullable: true},
	}
)

type socketOptions struct {
	host             string
	port             int
	numPartitions    int
	includeTimestamp bool
}

// parseSocketOptions validates options like TextSocketSourceProvider.checkParameters/getTable.
func parseSocketOptions(opts map[string]string, userSchema string, defaultPartitions int) (socketOptions, error) {
	opts = sources.NormalizeOptions(opts)
	if err := sources.NoUserSchema("TextSocketSourceProvider", userSchema); err != nil {
		return socketOptions{}, err
	}
	var o socketOptions
	host, ok := opts["host"]
	if !ok {
		return o, sparkerr.New(sparkerr.AnalysisException, "", "", `Set a host to read from with option("host", ...).`)
	}
	o.host = host
	if _, ok := opts["port"]; !ok {
		return o, sparkerr.New(sparkerr.AnalysisException, "", "", `Set a port to read from with option("port", ...).`)
	}
	var err error
	if o.includeTimestamp, err = sources.OptionBool(opts, "includetimestamp", false); err != nil {
		return o, sparkerr.New(sparkerr.AnalysisException, "", "", `includeTimestamp must be set to either "true" or "false"`)
	}
	if o.port, err = sources.OptionInt(opts, "port", -1); err != nil {
		return o, err
	}
	if o.port < 0 || o.port > 65535 {
		return o, sparkerr.IllegalArgument("port out of range:%d", o.port)
	}
	if o.numPartitions, err = sources.OptionInt(opts, "numpartitions", defaultPartitions); err != nil {
		return o, err
	}
	if err := sources.Positive("numPartitions", int64(o.numPartitions)); err != nil {
		return o, err
	}
	return o, nil
}

func socketSchemaFunc(opts map[string]string, userSchema string) (sqltypes.Schema, error) {
	o, err := parseSocketOptions(opts, userSchema, 1)
	if err != nil {
		return nil, err
	}
	return o.schema(), nil
}

func (o socketOptions) schema() sqltypes.Schema {
	if o.includeTimestamp {
		return socketSchemaTimestamp
	}
	return socketSchemaRegular
}

// socketLine is one received line and its arrival time (µs since the epoch).
type socketLine struct {
	value string
	at    int64
}

// SocketSource is the "socket" stream source.
type SocketSource struct {
	opts  socketOptions
	mem   memory.Allocator
	clock clock.Clock
	arrow *arrow.Schema
	conn  net.Conn
	done  chan struct{} // closed when the reader goroutine returns

	mu        sync.Mutex
	lines     []socketLine
	base      int64 // offset (index) of lines[0]
	handedOut int64 // the newest offset Latest returned
	failure   error // why no more lines come (peer closed, read error); nil while connected
	closed    bool
}

func openSocket(ctx context.Context, env sources.StreamEnv, opts map[string]string, userSchema string) (sources.StreamSource, error) {
	env = sources.EnvDefaults(env)
	o, err := parseSocketOptions(opts, userSchema, env.DefaultPartitions)
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort(o.host, strconv.Itoa(o.port))
	d := net.Dialer{Timeout: DialTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, dialError(addr, err)
	}
	s := &SocketSource{
		opts: o, mem: env.Mem, clock: env.Clock, conn: conn, done: make(chan struct{}),
		arrow:     sqltypes.ToArrowSchema(o.schema(), env.TimeZone),
		handedOut: -1,
	}
	go s.readLoop()
	return s, nil
}

// dialError is the error for a failed connection, shaped like the Java exception Spark's
// socket source would raise.
func dialError(addr string, err error) error {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return sparkerr.Newf(connectException, "", "",
			"Connection refused: the socket source cannot connect to %s", addr).Wrap(err)
	case errors.As(err, &dnsErr):
		return sparkerr.Newf("java.net.UnknownHostException", "", "",
			"%s: the socket source cannot resolve the host", addr).Wrap(err)
	}
	return sparkerr.Newf(connectException, "", "",
		"The socket source cannot connect to %s: %v", addr, err).Wrap(err)
}

// readLoop buffers lines until the connection ends; it is the only reader of conn.
func (s *SocketSource) readLoop() {
	defer close(s.done)
	r := bufio.NewReaderSize(s.conn, 64<<10)
	for {
		line, err := r.ReadString('\n')
		if line != "" && (err == nil || err == io.EOF) {
			line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			at := s.clock.Now().UnixMilli() * 1000
			s.mu.Lock()
			s.lines = append(s.lines, socketLine{value: strings.ToValidUTF8(line, "\uFFFD"), at: at})
			s.mu.Unlock()
		}
		if err == nil {
			continue
		}
		s.mu.Lock()
		if !s.closed {
			addr := net.JoinHostPort(s.opts.host, strconv.Itoa(s.opts.port))
			if err == io.EOF {
				s.failure = sparkerr.Newf(ioException, "", "",
					"The socket source's connection to %s was closed by the peer.", addr)
			} else {
				s.failure = sparkerr.Newf(ioException, "", "",
					"Reading from the socket source at %s failed: %v", addr, err).Wrap(err)
			}
		}
		s.mu.Unlock()
		return
	}
}

// Schema implements StreamSource.
func (s *SocketSource) Schema() sqltypes.Schema { return s.opts.schema() }

// Partitions implements StreamSource.
func (s *SocketSource) Partitions() int { return s.opts.numPartitions }

// Description is Spark's TextSocketMicroBatchStream.toString.
func (s *SocketSource) Description() string {
	return fmt.Sprintf("TextSocketV2[host: %s, port: %d]", s.opts.host, s.opts.port)
}

// Initial implements StreamSource: -1, before the first line.
func (s *SocketSource) Initial(context.Context) (sources.Offset, error) {
	return sources.LongOffset(-1), nil
}

// Latest implements StreamSource: the index of the newest line received; once the connection
// ended and every received line was handed out, the reason it ended.
func (s *SocketSource) Latest(context.Context) (sources.Offset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, sparkerr.New(sources.IllegalStateException, "", "", "The socket source is closed.")
	}
	newest := s.base + int64(len(s.lines)) - 1
	if newest > s.handedOut {
		s.handedOut = newest
		return sources.LongOffset(newest), nil
	}
	if s.failure != nil {
		return nil, s.failure
	}
	return sources.LongOffset(s.handedOut), nil
}

// Read implements StreamSource.
func (s *SocketSource) Read(ctx context.Context, p int, start, end sources.Offset, emit func(arrow.RecordBatch) error) error {
	first, err := sources.ParseLongOffset("socket", start)
	if err != nil {
		return err
	}
	last, err := sources.ParseLongOffset("socket", end)
	if err != nil {
		return err
	}
	if p != 0 || first == last {
		return nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return sparkerr.New(sources.IllegalStateException, "", "", "The socket source is closed.")
	}
	newest := s.base + int64(len(s.lines)) - 1
	switch {
	case first > last:
		s.mu.Unlock()
		return sparkerr.Internal("Offsets committed out of order: %d followed by %d", first, last)
	case first+1 < s.base:
		s.mu.Unlock()
		return sparkerr.Internal("the socket source no longer holds the lines after offset %d", first)
	case last > newest:
		failure := s.failure
		s.mu.Unlock()
		if failure != nil {
			return failure
		}
		return sparkerr.Internal("the socket source has no line at offset %d yet", last)
	}
	picked := slices.Clone(s.lines[first+1-s.base : last+1-s.base])
	// Lines up to last are read: drop them.
	clear(s.lines[:last+1-s.base])
	s.lines = s.lines[last+1-s.base:]
	s.base = last + 1
	s.mu.Unlock()
	if len(picked) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	vb := array.NewStringBuilder(s.mem)
	defer vb.Release()
	for _, l := range picked {
		vb.Append(l.value)
	}
	cols := []arrow.Array{vb.NewArray()}
	if s.opts.includeTimestamp {
		tb := array.NewTimestampBuilder(s.mem, s.arrow.Field(1).Type.(*arrow.TimestampType))
		for _, l := range picked {
			tb.Append(arrow.Timestamp(l.at))
		}
		cols = append(cols, tb.NewArray())
		tb.Release()
	}
	rec := array.NewRecordBatch(s.arrow, cols, int64(len(picked)))
	for _, c := range cols {
		c.Release()
	}
	return emit(rec)
}

// Close implements StreamSource: it closes the connection and waits for the reader goroutine.
func (s *SocketSource) Close() error {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	if already {
		<-s.done
		return nil
	}
	err := s.conn.Close()
	<-s.done
	s.mu.Lock()
	s.lines = nil
	s.mu.Unlock()
	return err
}
