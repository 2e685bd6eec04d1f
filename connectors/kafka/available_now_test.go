package kafka

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sources"
)

// Trigger.AvailableNow over Kafka with maxOffsetsPerTrigger: PrepareAvailableNow fixes the end
// offsets at the call as the target; records produced later are never planned; each epoch's
// end is capped by the read limit, spread over the partitions as Spark's rateLimit does; at the
// target the latest offset stays where the last epoch ended.
func TestKafkaAvailableNowCapsEpochsAtTheTarget(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 2, "t")
	produceKafka(t, addr, "t", 0, "a", "b", "c", "d", "e", "f")
	produceKafka(t, addr, "t", 1, "u", "v")
	src := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t",
		"startingOffsets": "earliest", "maxOffsetsPerTrigger": "5", "minOffsetsPerTrigger": "5"})
	ctx := context.Background()
	start, err := src.Initial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	target, err := src.(sources.AvailableNow).PrepareAvailableNow(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	if string(target) != `{"t":{"0":6,"1":2}}` {
		t.Fatalf("target %s", target)
	}
	produceKafka(t, addr, "t", 0, "late0")
	produceKafka(t, addr, "t", 1, "late1")

	// Backlog 6 and 2 of 8: 5*6/8 = 3.75 -> 3, 5*2/8 = 1.25 -> 1. Then 4 remain, fewer than
	// minOffsetsPerTrigger: that does not hold an availableNow epoch back.
	var ends []string
	var rows []string
	cur := start
	for range 5 {
		end, avail, err := src.(sources.RateLimited).LatestAndAvailable(ctx, cur)
		if err != nil {
			t.Fatal(err)
		}
		if string(avail) != string(target) {
			t.Fatalf("available %s, want the target %s", avail, target)
		}
		if string(end) == string(cur) {
			break
		}
		ends = append(ends, string(end))
		rows = append(rows, kafkaRows(t, src, cur, end)...)
		cur = end
	}
	if got := strings.Join(ends, " "); got != `{"t":{"0":3,"1":1}} {"t":{"0":6,"1":2}}` {
		t.Fatalf("epoch ends %s", got)
	}
	if got := sortedRows(rows); got != "t/0/0 ka=a\nt/0/1 kb=b\nt/0/2 kc=c\nt/0/3 kd=d\nt/0/4 ke=e\nt/0/5 kf=f\nt/1/0 ku=u\nt/1/1 kv=v" {
		t.Fatalf("rows\n%s", got)
	}
	// LatestFrom answers the same: nothing past the target.
	if end, err := src.(sources.StartRelative).LatestFrom(ctx, cur); err != nil || string(end) != string(target) {
		t.Fatalf("LatestFrom at the target: %s, %v", end, err)
	}
}

// Without maxOffsetsPerTrigger an availableNow epoch reads the whole target at once.
func TestKafkaAvailableNowWithoutLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 1, "t")
	produceKafka(t, addr, "t", 0, "a", "b", "c")
	src := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t",
		"startingOffsets": "earliest"})
	ctx := context.Background()
	start, err := src.Initial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.(sources.AvailableNow).PrepareAvailableNow(ctx, start); err != nil {
		t.Fatal(err)
	}
	produceKafka(t, addr, "t", 0, "late")
	end, err := src.(sources.StartRelative).LatestFrom(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	if string(end) != `{"t":{"0":3}}` {
		t.Fatalf("end %s", end)
	}
}
