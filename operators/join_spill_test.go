package operators

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/state"
)

// sameRows reports whether two command outputs hold the same lines in any order, ignoring the
// in-memory size flag of metrics (a spilled store's filter counts in memory).
func sameRows(a, b string) bool {
	norm := func(s string) []string {
		lines := strings.Split(memoryFlag.ReplaceAllString(s, ""), "\n")
		slices.Sort(lines)
		return lines
	}
	return slices.Equal(norm(a), norm(b))
}

// TestStreamJoinSpillSameOutput runs the join scripts with a one-byte memory budget (every
// stored row spills as soon as it is stored, so every match, matched flag, eviction and
// snapshot goes through the spill store) in lockstep with the unlimited run: every command
// prints the same rows (in any order), errors and metrics (but the in-memory size).
func TestStreamJoinSpillSameOutput(t *testing.T) {
	for _, path := range []string{"streamdata/join", "streamdata/join_spill"} {
		t.Run(path, func(t *testing.T) { spillLockstep(t, path, sameRows) })
	}
}

// spillLockstep runs a streamdata script with a one-byte memory budget in lockstep with the
// unlimited run: same must hold for every command's outputs; nothing leaks, and the scratch
// stores are gone at the end.
func spillLockstep(t *testing.T, path string, same func(got, want string) bool) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	dir := t.TempDir()
	plain := &streamHarness{mem: mem}
	spilling := &streamHarness{mem: mem, budget: state.Budget{MemoryBytes: 1, Dir: dir}}
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		want := plain.run(d)
		got := spilling.run(d)
		if !same(got, want) {
			t.Errorf("%s: with spill\n%s\nwithout\n%s", d.Pos, got, want)
		}
		return want
	})
	plain.close()
	spilling.close()
	mem.AssertSize(t, 0)
	assertEmptyDir(t, dir)
}

// command is a harness command built in code ("push in=1" + input).
func command(line, input string) *datadriven.TestData {
	fields := strings.Fields(line)
	d := &datadriven.TestData{Cmd: fields[0], Input: input}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		d.CmdArgs = append(d.CmdArgs, datadriven.CmdArg{Key: k, Vals: []string{v}})
	}
	return d
}

// TestStreamJoinSpillRandomized drives every stream-stream join type with watermarks, late
// rows, NULL keys and times, and snapshot/restore (some encoded on another goroutine while the
// instance goes on changing, as the background saver does) under a small random budget, in
// lockstep with the unlimited join: every step prints the same rows (in any order) and metrics;
// each side's rows in memory stay within its share of the budget; nothing leaks.
func TestStreamJoinSpillRandomized(t *testing.T) {
	seed := randomSeed(t)
	goroutines := runtime.NumGoroutine()
	for _, typ := range []string{"inner", "left", "right", "full", "semi"} {
		t.Run(typ, func(t *testing.T) {
			h := fnv.New64a()
			h.Write([]byte(typ))
			rng := rand.New(rand.NewPCG(seed, h.Sum64()))
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			dir := t.TempDir()
			budget := state.Budget{MemoryBytes: int64(1 + rng.IntN(6000)), Dir: dir}
			t.Logf("budget %d bytes", budget.MemoryBytes)
			plain := &streamHarness{mem: mem}
			spilling := &streamHarness{mem: mem, budget: budget}
			step := 0
			lockstep := func(d *datadriven.TestData) {
				t.Helper()
				want := plain.run(d)
				got := spilling.run(d)
				if !sameRows(got, want) {
					t.Fatalf("step %d: %s %v\n%s\nwith spill\n%s\nwithout\n%s", step, d.Cmd, d.CmdArgs, d.Input, got, want)
				}
			}
			lockstep(command("new kind=join type="+typ+" cols=k:long,lt:ts,s:string right=j:long,rt:ts,u:string "+
				"lkeys=k rkeys=j residual=lt>=rt lbound=lt rbound=rt+10 llate=lt rlate=rt", ""))
			wm, spilledRows, outRows := int64(0), uint64(0), 0
			for ; step < 250; step++ {
				switch op := rng.IntN(20); {
				case op < 13:
					var lines []string
					for range 1 + rng.IntN(25) {
						k, ts, str := fmt.Sprint(rng.IntN(8)), fmt.Sprint(wm+int64(rng.IntN(45))-5), fmt.Sprintf("x%d", rng.IntN(4))
						if rng.IntN(15) == 0 {
							k = "null"
						}
						if rng.IntN(20) == 0 {
							ts = "null"
						}
						if rng.IntN(6) == 0 {
							str = "null"
						}
						lines = append(lines, k+", "+ts+", "+str)
					}
					lockstep(command(fmt.Sprint("push in=", rng.IntN(2)), strings.Join(lines, "\n")))
					outRows += len(plain.lines)
				case op < 16:
					wm += int64(rng.IntN(15))
					lockstep(command(fmt.Sprint("watermark ts=", wm), ""))
					outRows += len(plain.lines)
				case op < 17:
					lockstep(command("metrics", ""))
				case op < 18:
					lockstep(command("restart", ""))
				default:
					restartWhileChanging(t, plain, spilling, wm)
				}
				j := spilling.op.(*streamJoin)
				for _, s := range j.sides {
					if s.state.bytes > s.sp.budget.MemoryBytes {
						t.Fatalf("step %d: %d bytes of rows in memory over the side's share %d", step, s.state.bytes, s.sp.budget.MemoryBytes)
					}
					checkIndex(t, step, s.state)
					spilledRows += s.sp.seq
				}
			}
			lockstep(command("metrics", ""))
			if spilledRows == 0 {
				t.Errorf("nothing spilled under a budget of %d bytes", budget.MemoryBytes)
			}
			if outRows == 0 {
				t.Errorf("the join emitted nothing")
			}
			plain.close()
			spilling.close()
			mem.AssertSize(t, 0)
			assertEmptyDir(t, dir)
		})
	}
	assertNoMoreGoroutines(t, goroutines)
}

// assertNoMoreGoroutines checks that no more goroutines run than before (given a moment to end).
func assertNoMoreGoroutines(t *testing.T, before int) {
	t.Helper()
	if n := runtime.NumGoroutine(); n > before {
		time.Sleep(100 * time.Millisecond)
		if n = runtime.NumGoroutine(); n > before {
			t.Errorf("%d goroutines after closing, %d before", n, before)
		}
	}
}

// restartWhileChanging restarts both joins from a snapshot taken now: the unlimited one at
// once, the spilling one from a capture encoded on another goroutine while the instance
// evicts, matches and spills more rows (whose output is dropped: the restart replays them).
func restartWhileChanging(t *testing.T, plain, spilling *streamHarness, wm int64) {
	t.Helper()
	plain.run(command("restart", ""))
	c, err := spilling.op.(flow.StateCapturer).CaptureState(1)
	if err != nil {
		t.Fatal(err)
	}
	encoded := encodeInBackground(c)
	var lines []string
	for k := range 20 {
		lines = append(lines, fmt.Sprintf("%d, %d, y", k%8, wm+int64(k)))
	}
	rows := strings.Join(lines, "\n")
	spilling.run(command("push in=0", rows))
	spilling.run(command("push in=1", rows))
	spilling.run(command(fmt.Sprint("watermark ts=", wm+30), ""))
	data, err := encoded()
	if err != nil {
		t.Fatal(err)
	}
	spilling.close()
	op, err := spilling.factory(spilling.env)
	if err != nil {
		t.Fatal(err)
	}
	spilling.op = op
	if err := op.(flow.Snapshotter).RestoreState(data); err != nil {
		t.Fatal(err)
	}
}

// encodeInBackground encodes (and releases) a capture on another goroutine, as the runtime's
// saver does; the function it returns waits for the encoding.
func encodeInBackground(c flow.StateCapture) func() ([]byte, error) {
	var data []byte
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		data, err = encodeNow(c)
	}()
	return func() ([]byte, error) {
		<-done
		return data, err
	}
}

// TestStreamJoinLongRunPacks streams 2,000 batches of rows with rising event times through a
// left outer join, advancing the watermark as it goes, unlimited and under a small budget (the
// oldest rows spill): evicted and spilled batches leave the memory list (pack), so it stays
// as short as the live batches allow; every unmatched left row comes out once.
func TestStreamJoinLongRunPacks(t *testing.T) {
	for _, budget := range []int64{0, 8 << 10} {
		t.Run(fmt.Sprint("budget=", budget), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			dir := t.TempDir()
			h := &streamHarness{mem: mem, budget: state.Budget{MemoryBytes: budget, Dir: dir}}
			h.run(command("new kind=join type=left cols=k:long,lt:ts right=j:long,rt:ts lkeys=k rkeys=j lbound=lt rbound=rt", ""))
			const batches, rows = 2000, 10
			longest, padded := 0, 0
			for b := range batches {
				var lines []string
				for i := range rows {
					lines = append(lines, fmt.Sprintf("%d, %d", b*rows+i, b))
				}
				if out := h.run(command("push in=0", strings.Join(lines, "\n"))); out != "ok\n" {
					t.Fatalf("batch %d: %s", b, out)
				}
				if b%10 == 9 {
					out := h.run(command(fmt.Sprint("watermark ts=", b-50), ""))
					if out != "ok\n" {
						padded += strings.Count(out, "\n")
					}
				}
				longest = max(longest, len(h.op.(*streamJoin).sides[0].state.batches))
			}
			if out := h.run(command(fmt.Sprint("watermark ts=", batches), "")); out != "ok\n" {
				padded += strings.Count(out, "\n")
			}
			if padded != batches*rows {
				t.Errorf("%d unmatched left rows came out, want %d", padded, batches*rows)
			}
			// 51 batches of live rows at most, twice that with released batches not packed yet.
			if longest > 2*51+10 {
				t.Errorf("the memory list of batches reached %d entries", longest)
			}
			if budget > 0 && h.op.(*streamJoin).sides[0].sp.seq == 0 {
				t.Errorf("nothing spilled under a budget of %d bytes", budget)
			}
			h.close()
			mem.AssertSize(t, 0)
			assertEmptyDir(t, dir)
		})
	}
}

// BenchmarkStreamJoinSpill is BenchmarkStreamJoin with a 256 KiB state budget: most stored
// rows spill, and every probe of a spilled key reads the spill store.
func BenchmarkStreamJoinSpill(b *testing.B) {
	benchmarkStreamJoin(b, state.Budget{MemoryBytes: 256 << 10, Dir: b.TempDir()})
}
