package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

func TestBatchReadOfKafka(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := c.ListenAddrs()[0]
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i, v := range []string{"a", "b", "c", "x", "y"} {
		p := int32(0)
		if i >= 3 {
			p = 1
		}
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: "t", Partition: p, Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	s := NewSession()
	defer s.Close()
	read := func(opts map[string]string) plan.Relation {
		o := map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t"}
		for k, v := range opts {
			o[k] = v
		}
		return &plan.Project{Input: &plan.DataSource{Format: "kafka", Options: o}, Exprs: []plan.Expr{
			&plan.Cast{Child: &plan.ColumnRef{Name: []string{"value"}}, To: sqltypes.StringType},
			&plan.ColumnRef{Name: []string{"partition"}}, &plan.ColumnRef{Name: []string{"offset"}}}}
	}
	if got := strings.Join(rowsOf(t, s, read(nil)), ","); got != "a|0|0,b|0|1,c|0|2,x|1|0,y|1|1" {
		t.Fatalf("earliest to latest: %s", got)
	}
	got := strings.Join(rowsOf(t, s, read(map[string]string{"startingOffsets": `{"t":{"0":1,"1":-2}}`,
		"endingOffsets": `{"t":{"0":2,"1":-1}}`})), ",")
	if got != "b|0|1,x|1|0,y|1|1" {
		t.Fatalf("offsets JSON: %s", got)
	}
	_, err = s.Analyze(context.Background(), read(map[string]string{"startingOffsets": "latest"}))
	if se, ok := sparkerr.As(err); !ok || se.Message != "starting offset can't be latest for batch queries on Kafka" {
		t.Fatalf("latest start: %v", err)
	}
}
