// Package goclient is Weir's smoke test of the Go Spark Connect client (apache/spark-connect-go):
// it starts the weir binary (WEIR_BIN, default ../../../bin/weir), connects, runs SQL, builds and
// aggregates a DataFrame, collects, and reads an analysis error. It is its own module so the server's
// module does not depend on the client; scripts/client-compat.sh runs it.
package goclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/apache/spark-connect-go/spark/sparkerrors"
	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/apache/spark-connect-go/spark/sql/functions"
	"github.com/apache/spark-connect-go/spark/sql/types"
)

// startWeir runs the server on a free loopback port with a state dir under t.TempDir() and
// returns its sc:// address; the server is stopped (SIGTERM) when the test ends.
func startWeir(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("WEIR_BIN")
	if bin == "" {
		bin = filepath.Join("..", "..", "..", "bin", "weir")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--listen", addr, "--state-dir", filepath.Join(dir, "state"))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("weir did not stop cleanly: %v", err)
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("weir did not stop within 10s of SIGINT")
		}
		log.Close()
		if t.Failed() {
			out, _ := os.ReadFile(log.Name())
			t.Logf("server log:\n%s", out)
		}
	})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return "sc://" + addr
		}
	}
	t.Fatalf("weir did not listen on %s", addr)
	return ""
}

func values(t *testing.T, rows []types.Row) [][]any {
	t.Helper()
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = r.Values()
	}
	return out
}

func TestGoClientSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spark, err := sql.NewSessionBuilder().Remote(startWeir(t)).Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer spark.Stop()

	t.Run("sql", func(t *testing.T) {
		df, err := spark.Sql(ctx, "SELECT id, id * id AS sq, concat('n', id) AS s FROM range(5) WHERE id % 2 = 0 ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		rows, err := df.Collect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := [][]any{{int64(0), int64(0), "n0"}, {int64(2), int64(4), "n2"}, {int64(4), int64(16), "n4"}}
		if got := values(t, rows); !reflect.DeepEqual(got, want) {
			t.Fatalf("rows = %v, want %v", got, want)
		}
		if names := rows[0].FieldNames(); !reflect.DeepEqual(names, []string{"id", "sq", "s"}) {
			t.Fatalf("field names = %v", names)
		}
		n, err := df.Count(ctx)
		if err != nil || n != 3 {
			t.Fatalf("count = %d, %v; want 3", n, err)
		}
	})

	t.Run("dataframe", func(t *testing.T) {
		schema := types.StructOf(types.NewStructField("k", types.STRING), types.NewStructField("v", types.LONG))
		var data [][]any
		for i := 0; i < 20; i++ {
			data = append(data, []any{fmt.Sprintf("k%d", i%3), i})
		}
		df, err := spark.CreateDataFrame(ctx, data, schema)
		if err != nil {
			t.Fatal(err)
		}
		df, err = df.Filter(ctx, functions.Col("v").Ge(functions.Lit(types.Int64(5))))
		if err != nil {
			t.Fatal(err)
		}
		agg, err := df.GroupBy(functions.Col("k")).Agg(ctx,
			functions.Count(functions.Col("v")).Alias("n"), functions.Sum(functions.Col("v")).Alias("s"))
		if err != nil {
			t.Fatal(err)
		}
		agg, err = agg.OrderBy(ctx, functions.Col("k").Asc())
		if err != nil {
			t.Fatal(err)
		}
		rows, err := agg.Collect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := [][]any{{"k0", int64(5), int64(6 + 9 + 12 + 15 + 18)}, {"k1", int64(5), int64(7 + 10 + 13 + 16 + 19)},
			{"k2", int64(5), int64(5 + 8 + 11 + 14 + 17)}}
		if got := values(t, rows); !reflect.DeepEqual(got, want) {
			t.Fatalf("rows = %v, want %v", got, want)
		}
	})

	t.Run("analysis error", func(t *testing.T) {
		df, err := spark.Sql(ctx, "SELECT no_such_column FROM range(1)")
		if err == nil {
			_, err = df.Collect(ctx)
		}
		var se *sparkerrors.SparkError
		if !errors.As(err, &se) {
			se = sparkerrors.FromRPCError(err)
		}
		if se == nil || se.ErrorClass != "UNRESOLVED_COLUMN.WITH_SUGGESTION" || se.SqlState != "42703" {
			t.Fatalf("error = %v (%+v), want UNRESOLVED_COLUMN.WITH_SUGGESTION / 42703", err, se)
		}
	})
}
