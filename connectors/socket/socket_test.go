package socket

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sources/sourcetest"
	"github.com/weirhq/weir/sparkerr"
)

// lineServer listens on a loopback port and hands out the connections it accepts.
func lineServer(t *testing.T) (port string, conns chan net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns = make(chan net.Conn, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err == nil {
			conns <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		select {
		case c := <-conns:
			c.Close()
		default:
		}
	})
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, conns
}

// eventually retries cond until it holds or five seconds pass (network arrival is not
// synchronous with the test).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// noLeak checks that the goroutines started during the test have ended by its end.
func noLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		eventually(t, fmt.Sprintf("goroutines to return to %d", before), func() bool { return runtime.NumGoroutine() <= before })
	})
}

// socketRows reads partition p's (start, end]: values and timestamps (µs; nil without them).
func socketRows(src sources.StreamSource, p int, start, end int64) (vals []string, ts []int64, err error) {
	err = src.Read(context.Background(), p, sources.LongOffset(start), sources.LongOffset(end), func(rec arrow.RecordBatch) error {
		defer rec.Release()
		for i := 0; i < int(rec.NumRows()); i++ {
			vals = append(vals, rec.Column(0).(*array.String).Value(i))
			if rec.NumCols() == 2 {
				ts = append(ts, int64(rec.Column(1).(*array.Timestamp).Value(i)))
			}
		}
		return nil
	})
	return vals, ts, err
}

func TestSocketReadsLines(t *testing.T) {
	noLeak(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	port, conns := lineServer(t)
	mock := clock.NewMock()
	mock.Set(time.UnixMilli(1_234_567))
	src, err := connectors.OpenStream(t.Context(), "socket", sources.StreamEnv{Mem: mem, Clock: mock, TimeZone: "UTC", DefaultPartitions: 2},
		map[string]string{"host": "127.0.0.1", "port": port, "includeTimestamp": "TRUE"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if src.Description() != "TextSocketV2[host: 127.0.0.1, port: "+port+"]" || src.Partitions() != 2 {
		t.Fatalf("description %q partitions %d", src.Description(), src.Partitions())
	}
	if got := sourcetest.OffsetString(t)(src.Initial(t.Context())); got != "-1" {
		t.Fatalf("initial %s", got)
	}
	if got := sourcetest.OffsetString(t)(src.Latest(t.Context())); got != "-1" {
		t.Fatalf("latest before any line %s", got)
	}
	server := <-conns
	if _, err := server.Write([]byte("hello\nwörld\r\nthird\n")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "three lines", func() bool { o, err := src.Latest(t.Context()); return err == nil && string(o) == "2" })
	// Partition 1 gets nothing; partition 0 gets the lines in order.
	v1, _, err := socketRows(src, 1, -1, 2)
	if err != nil || len(v1) != 0 {
		t.Fatalf("partition 1: %v %v", v1, err)
	}
	v0, ts0, err := socketRows(src, 0, -1, 2)
	if err != nil || strings.Join(v0, ",") != "hello,wörld,third" || len(ts0) != 3 || ts0[0] != 1_234_567_000 || ts0[2] != 1_234_567_000 {
		t.Fatalf("partition 0: %v %v %v", v0, ts0, err)
	}
	// Read lines are gone.
	if _, _, err := socketRows(src, 0, -1, 2); err == nil {
		t.Fatal("lines every partition read are still readable")
	}
	// A last line without a newline counts once the peer closes; then the source fails.
	if _, err := server.Write([]byte("last")); err != nil {
		t.Fatal(err)
	}
	server.Close()
	eventually(t, "the last line", func() bool { o, err := src.Latest(t.Context()); return err == nil && string(o) == "3" })
	var closedErr error
	eventually(t, "the close to surface", func() bool { _, closedErr = src.Latest(t.Context()); return closedErr != nil })
	if se, ok := sparkerr.As(closedErr); !ok || se.JavaClass != ioException || !strings.Contains(se.Message, "closed by the peer") {
		t.Fatalf("peer close: %v", closedErr)
	}
	if v, _, err := socketRows(src, 1, 2, 3); err != nil || len(v) != 0 {
		t.Fatalf("partition 1 of (2, 3]: %v %v", v, err)
	}
	if v, _, err := socketRows(src, 0, 2, 3); err != nil || strings.Join(v, ",") != "last" {
		t.Fatalf("partition 0 of (2, 3]: %v %v", v, err)
	}
	if _, _, err := socketRows(src, 0, 3, 4); err != closedErr {
		t.Fatalf("reading past the end of a closed stream: %v", err)
	}
}

func TestSocketCloseStopsReader(t *testing.T) {
	noLeak(t)
	port, conns := lineServer(t)
	src, err := connectors.OpenStream(t.Context(), "socket", sources.StreamEnv{}, map[string]string{"host": "localhost", "port": port, "numPartitions": "1"}, "")
	if err != nil {
		t.Fatal(err)
	}
	server := <-conns
	defer server.Close()
	if _, err := server.Write([]byte("a\n")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a line", func() bool { o, err := src.Latest(t.Context()); return err == nil && string(o) == "0" })
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if _, err := src.Latest(t.Context()); err == nil {
		t.Fatal("latest after close")
	}
	if src.Schema().TreeString() != socketSchemaRegular.TreeString() {
		t.Fatalf("schema %s", src.Schema().TreeString())
	}
}

func TestSocketConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	_, err = connectors.OpenStream(t.Context(), "socket", sources.StreamEnv{}, map[string]string{"host": "127.0.0.1", "port": port}, "")
	se, ok := sparkerr.As(err)
	if !ok || se.JavaClass != connectException || !strings.HasPrefix(se.Message, "Connection refused") {
		t.Fatalf("refused connection: %v", err)
	}
}

func TestSocketOptionValidation(t *testing.T) {
	for _, tc := range []struct {
		opts       map[string]string
		schema     string
		class, msg string
	}{
		{map[string]string{"port": "1"}, "", sparkerr.AnalysisException, `Set a host to read from with option("host", ...).`},
		{map[string]string{"host": "localhost"}, "", sparkerr.AnalysisException, `Set a port to read from with option("port", ...).`},
		{map[string]string{"host": "localhost", "port": "1", "includeTimestamp": "maybe"}, "", sparkerr.AnalysisException, `includeTimestamp must be set to either "true" or "false"`},
		{map[string]string{"host": "localhost", "port": "http"}, "", sparkerr.NumberFormatException, `For input string: "http"`},
		{map[string]string{"host": "localhost", "port": "70000"}, "", sparkerr.IllegalArgumentException, "port out of range:70000"},
		{map[string]string{"host": "localhost", "port": "1"}, "value STRING", sparkerr.UnsupportedOperation, "TextSocketSourceProvider source does not support user-specified schema."},
	} {
		_, err := connectors.StreamSchema("socket", tc.opts, tc.schema)
		sourcetest.OptionError(t, fmt.Sprint("schema ", tc.opts), err, tc.class, tc.msg)
		_, err = connectors.OpenStream(t.Context(), "socket", sources.StreamEnv{}, tc.opts, tc.schema)
		sourcetest.OptionError(t, fmt.Sprint("open ", tc.opts), err, tc.class, tc.msg)
	}
	schema, err := connectors.StreamSchema("socket", map[string]string{"HOST": "h", "PORT": strconv.Itoa(9999), "includetimestamp": "true"}, "")
	if err != nil || schema.TreeString() != socketSchemaTimestamp.TreeString() {
		t.Fatalf("schema %v %v", schema, err)
	}
}
