package kafka

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/sources"
)

func rangesText(rs []kafkaRange) string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s[%d,%d)", r.tp, r.from, r.until))
	}
	return strings.Join(out, " ")
}

// The pieces Spark's KafkaOffsetRangeCalculator makes of the ranges for minPartitions.
func TestSplitKafkaRangesAsSpark(t *testing.T) {
	a, b, c := kafkaTopicPartition{"t", 1}, kafkaTopicPartition{"t", 2}, kafkaTopicPartition{"t", 3}
	for _, tc := range []struct {
		name   string
		ranges []kafkaRange
		min    int
		want   string // "" : not split
	}{
		{"no minPartitions", []kafkaRange{{a, 1, 2}}, 0, ""},
		{"enough ranges", []kafkaRange{{a, 1, 2}, {b, 1, 2}}, 2, ""},
		{"one range in three", []kafkaRange{{a, 1, 4}}, 3, "t-1[1,2) t-1[2,3) t-1[3,4)"},
		{"the last piece takes the rounding", []kafkaRange{{a, 1, 5}}, 3, "t-1[1,2) t-1[2,3) t-1[3,5)"},
		// 4 of 24 rounds to one piece: it is left out, and the 20 left get the 2 pieces left.
		{"small ranges stay whole", []kafkaRange{{a, 1, 5}, {b, 1, 21}}, 3, "t-1[1,5) t-2[1,11) t-2[11,21)"},
		{"empty ranges are dropped", []kafkaRange{{a, 5, 5}, {b, 0, 4}}, 2, "t-2[0,2) t-2[2,4)"},
		{"more pieces than records", []kafkaRange{{a, 0, 2}}, 5, "t-1[0,1) t-1[1,2)"},
		{"an unknown start stays whole", []kafkaRange{{a, kafkaOffsetEarliest, 9}, {b, 0, 10}}, 4,
			"t-1[-2,9) t-2[0,3) t-2[3,6) t-2[6,10)"},
		{"three ranges, skewed", []kafkaRange{{a, 0, 100}, {b, 0, 10}, {c, 0, 10}}, 6,
			"t-1[0,25) t-1[25,50) t-1[50,75) t-1[75,100) t-2[0,10) t-3[0,10)"},
	} {
		got, ok := splitKafkaRanges(tc.ranges, tc.min, 4)
		if s := rangesText(got); !ok && tc.want != "" || ok && s != tc.want {
			t.Errorf("%s: split %t %q, want %q", tc.name, ok, s, tc.want)
		}
	}
	if _, ok := splitKafkaRanges([]kafkaRange{{a, 0, 100}}, 4, 1); ok {
		t.Error("a single source partition has nothing to split for")
	}
}

// The source partitions' shares: contiguous runs of pieces, a topic-partition's adjacent pieces
// on one partition merged; together exactly the ranges.
func TestKafkaPartitionRangesDealsPieces(t *testing.T) {
	from := kafkaOffsets{"t": {0: 0, 1: 100}}
	to := kafkaOffsets{"t": {0: 80, 1: 100}}
	var shares []string
	for p := range 3 {
		shares = append(shares, rangesText(kafkaPartitionRanges(p, 3, 4, from, to)))
	}
	if got := strings.Join(shares, " | "); got != "t-0[0,40) | t-0[40,60) | t-0[60,80)" {
		t.Fatalf("shares %s", got)
	}
	// Without minPartitions: whole topic-partitions round-robin, empty ones kept assigned.
	shares = nil
	for p := range 3 {
		shares = append(shares, rangesText(kafkaPartitionRanges(p, 3, 0, from, to)))
	}
	if got := strings.Join(shares, " | "); got != "t-0[0,80) | t-1[100,100) | " {
		t.Fatalf("round-robin shares %s", got)
	}
}

// A batch-style read of one 40-record topic-partition over 4 source partitions with
// minPartitions=4 reads a quarter on each, exactly the records once.
func TestKafkaMinPartitionsSplitsReads(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 1, "big")
	var values []string
	for i := range 40 {
		values = append(values, fmt.Sprintf("%02d", i))
	}
	produceKafka(t, addr, "big", 0, values...)
	src, err := connectors.OpenStream(context.Background(), "kafka", sources.StreamEnv{Mem: mem, DefaultPartitions: 4, TimeZone: "UTC"},
		map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "big", "startingOffsets": "earliest",
			"minPartitions": "4"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx := context.Background()
	start, err := src.Initial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	end, err := src.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for p := range 4 {
		var rows []string
		err := src.Read(ctx, p, start, end, func(rec arrow.RecordBatch) error {
			defer rec.Release()
			for i := range int(rec.NumRows()) {
				rows = append(rows, fmt.Sprint(rec.Column(4).ValueStr(i)))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 10 {
			t.Fatalf("source partition %d read %d records (%v), want 10", p, len(rows), rows)
		}
		all = append(all, rows...)
	}
	sort.Slice(all, func(i, j int) bool { return len(all[i]) < len(all[j]) || len(all[i]) == len(all[j]) && all[i] < all[j] })
	var want []string
	for i := range 40 {
		want = append(want, fmt.Sprint(i))
	}
	if strings.Join(all, ",") != strings.Join(want, ",") {
		t.Fatalf("offsets read %v", all)
	}
	// A second epoch over the same source splits again: consumers are replaced where needed.
	produceKafka(t, addr, "big", 0, "40", "41", "42", "43")
	next, err := src.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rows := kafkaRows(t, src, end, next); len(rows) != 4 {
		t.Fatalf("second epoch %v", rows)
	}
}
