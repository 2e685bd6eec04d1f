package protoconv_test

import (
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/weirhq/weir/connect/protoconv"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sql/plan"
)

// peakAllocator is a checked allocator that also records the most Arrow memory it held.
type peakAllocator struct {
	*memory.CheckedAllocator
	peak int
}

func (a *peakAllocator) Allocate(n int) []byte {
	b := a.CheckedAllocator.Allocate(n)
	a.peak = max(a.peak, a.CheckedAllocator.CurrentAlloc())
	return b
}

func (a *peakAllocator) Reallocate(n int, b []byte) []byte {
	b = a.CheckedAllocator.Reallocate(n, b)
	a.peak = max(a.peak, a.CheckedAllocator.CurrentAlloc())
	return b
}

// convertFuzzed converts m with a fresh allocator, releases whatever the conversion decoded,
// and fails the fuzz run on a leak or on Arrow memory out of proportion to the input size
// (decoding is bounded to 16 times the bytes plus 1 MiB; see decodeIPC).
func convertFuzzed(t *testing.T, m proto.Message, inputBytes int) {
	mem := &peakAllocator{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	conv := protoconv.Converter{Alloc: mem}
	switch m := m.(type) {
	case *pb.Relation:
		if rel, err := conv.Relation(m); err == nil {
			protoconv.ReleaseRecords(rel)
		}
	case *pb.Command:
		if c, err := conv.Command(m); err == nil {
			switch c := c.(type) {
			case plan.Query:
				protoconv.ReleaseRecords(c.Input)
			case plan.CreateView:
				protoconv.ReleaseRecords(c.Input)
			}
		}
	}
	if n := mem.CurrentAlloc(); n != 0 {
		t.Fatalf("%d bytes of Arrow memory leaked on\n%s", n, prototext.Format(m))
	}
	if limit := 16*inputBytes + 1<<20; mem.peak > limit {
		t.Fatalf("decoding %d input bytes held %d bytes of Arrow memory (limit %d)", inputBytes, mem.peak, limit)
	}
}

// seedMessages adds the wire encoding of every golden-file message of type T.
func seedMessages[T proto.Message](f *testing.F) {
	for _, m := range corpus(f) {
		if _, ok := m.(T); !ok {
			continue
		}
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzRelation: arbitrary bytes that unmarshal as a Relation convert to a plan or an error,
// without panicking, leaking or allocating out of proportion.
func FuzzRelation(f *testing.F) {
	seedMessages[*pb.Relation](f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var rel pb.Relation
		if proto.Unmarshal(data, &rel) != nil {
			return
		}
		convertFuzzed(t, &rel, len(data))
	})
}

// FuzzCommand is FuzzRelation for Commands.
func FuzzCommand(f *testing.F) {
	seedMessages[*pb.Command](f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var cmd pb.Command
		if proto.Unmarshal(data, &cmd) != nil {
			return
		}
		convertFuzzed(t, &cmd, len(data))
	})
}

// FuzzLocalRelation feeds arbitrary bytes as LocalRelation.data, the Arrow IPC stream of
// createDataFrame, seeded with real streams (flat, empty, several batches, nested with
// metadata, and those of the golden files).
func FuzzLocalRelation(f *testing.F) {
	f.Add(ipcStream(f, 3))
	f.Add(ipcStream(f, 0))
	f.Add(ipcStream(f, 2, 5, 1))
	f.Add(nestedStream(f))
	for _, m := range corpus(f) {
		if rel, ok := m.(*pb.Relation); ok && rel.GetLocalRelation().GetData() != nil {
			f.Add(rel.GetLocalRelation().GetData())
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rel := &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: data}}}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		convertFuzzed(t, rel, len(data))
		runtime.ReadMemStats(&after)
		// Go heap allocated while decoding (reader state, metadata), beyond the Arrow buffers.
		if n, limit := after.TotalAlloc-before.TotalAlloc, uint64(64*len(data)+4<<20); n > limit {
			t.Fatalf("decoding %d bytes allocated %d bytes of Go heap (limit %d)", len(data), n, limit)
		}
	})
}
