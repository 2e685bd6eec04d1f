package files

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/sources"
)

// settleBase is the mock clock's start in the settle tests.
var settleBase = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// openMocked opens a text file stream over dir whose clock is a mock set to settleBase.
func openMocked(t *testing.T, mem memory.Allocator, dir string, meta sources.MetadataStore) (*fileStream, *clock.Mock) {
	t.Helper()
	mock := clock.NewMock()
	mock.Set(settleBase)
	src, err := connectors.OpenStream(context.Background(), "text",
		sources.StreamEnv{Mem: mem, Clock: mock, DefaultPartitions: 2, TimeZone: "UTC", Metadata: meta},
		map[string]string{"path": dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src.(*fileStream), mock
}

// writeMod writes (or with content "" creates empty) a file, its modification time settleBase
// plus at.
func writeMod(t *testing.T, dir, name, content string, at time.Duration) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	mt := settleBase.Add(at)
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
}

// A file listed right after its writer created it (empty) and again while it is being written
// is logged only once it has not changed for settleAfter, with all its rows; a file whose
// modification time is ahead of the clock settles settleAfter after it was first seen so.
func TestFileStreamAdmitsAFileOnceWritten(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	src, mock := openMocked(t, mem, dir, nil)
	step := func(to time.Duration, want string) {
		t.Helper()
		mock.Set(settleBase.Add(to))
		if got := latest(t, src); got != want {
			t.Fatalf("at +%v: latest %s, want %s", to, got, want)
		}
	}
	writeMod(t, dir, "a.txt", "", 0) // open(…, "w")
	step(time.Millisecond, `{"logOffset":-1}`)
	step(time.Hour, `{"logOffset":-1}`) // an empty file waits for its content however old
	writeMod(t, dir, "a.txt", "row 1\n", time.Hour+time.Millisecond)
	step(time.Hour+2*time.Millisecond, `{"logOffset":-1}`)
	writeMod(t, dir, "a.txt", "row 1\nrow 2\n", time.Hour+3*time.Millisecond) // close()
	step(time.Hour+4*time.Millisecond, `{"logOffset":-1}`)
	step(time.Hour+3*time.Millisecond+settleAfter-time.Microsecond, `{"logOffset":-1}`)
	step(time.Hour+3*time.Millisecond+settleAfter, `{"logOffset":0}`)
	if got := readAll(t, src, `{"logOffset":-1}`, `{"logOffset":0}`); strings.Join(got, ",") != "row 1,row 2" {
		t.Fatalf("rows %v", got)
	}

	// Modified "in the future" (another machine's clock): settled settleAfter after it was
	// first seen unchanged.
	writeMod(t, dir, "b.txt", "row 3\n", 2*time.Hour)
	step(time.Hour+time.Second, `{"logOffset":0}`)
	step(time.Hour+time.Second+settleAfter, `{"logOffset":1}`)
	if got := readAll(t, src, `{"logOffset":0}`, `{"logOffset":1}`); strings.Join(got, ",") != "row 3" {
		t.Fatalf("rows %v", got)
	}
	// A file removed before it settled is forgotten.
	writeMod(t, dir, "c.txt", "row 4\n", time.Hour+2*time.Second)
	step(time.Hour+2*time.Second, `{"logOffset":1}`)
	if _, ok := src.settle.pending[filepath.Join(dir, "c.txt")]; !ok {
		t.Fatal("c.txt not pending")
	}
	if err := os.Remove(filepath.Join(dir, "c.txt")); err != nil {
		t.Fatal(err)
	}
	step(time.Hour+3*time.Second, `{"logOffset":1}`)
	if len(src.settle.pending) != 0 {
		t.Fatalf("pending %v", src.settle.pending)
	}
}

// processAllAvailable and Trigger.Once (LatestAndAvailable) include a file written just before
// the call though it has not settled yet: the call waits for it (once, until it settles) and
// logs it. A file still being written during the call is not waited for again, nor an empty
// one; later listings log the first once it settled.
func TestFileStreamAvailableIncludesUnsettledFiles(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	src, mock := openMocked(t, mem, dir, nil)
	writeMod(t, dir, "done.txt", "written\n", 0)
	writeMod(t, dir, "busy.txt", "part", 0)
	writeMod(t, dir, "empty.txt", "", 0)
	mock.Set(settleBase.Add(time.Millisecond))
	var waits []time.Duration
	src.settle.wait = func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		if len(waits) == 1 {
			writeMod(t, dir, "busy.txt", "partial\n", 5*time.Millisecond) // its writer goes on
		}
		mock.Add(d)
		return nil
	}
	next, avail, err := src.LatestAndAvailable(context.Background(), sources.Offset(`{"logOffset":-1}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(next) != `{"logOffset":0}` || string(avail) != `{"logOffset":0}` {
		t.Fatalf("latest %s available %s", next, avail)
	}
	if len(waits) != 1 || waits[0] != settleAfter-time.Millisecond {
		t.Fatalf("waits %v", waits)
	}
	if got := readAll(t, src, `{"logOffset":-1}`, string(avail)); strings.Join(got, ",") != "written" {
		t.Fatalf("rows %v", got)
	}
	// The writer of busy.txt finishes; the next listings log it once it settled.
	writeMod(t, dir, "busy.txt", "partial\nline\n", 10*time.Millisecond)
	if got := latest(t, src); got != `{"logOffset":0}` {
		t.Fatalf("latest while busy.txt settles %s", got)
	}
	mock.Set(settleBase.Add(10*time.Millisecond + settleAfter))
	if got := latest(t, src); got != `{"logOffset":1}` {
		t.Fatalf("latest once busy.txt settled %s", got)
	}
	if got := readAll(t, src, `{"logOffset":0}`, `{"logOffset":1}`); strings.Join(got, ",") != "line,partial" {
		t.Fatalf("rows %v", got)
	}
	if len(waits) != 1 {
		t.Fatalf("Latest waited: %v", waits)
	}
}

// Trigger.AvailableNow's target holds the files written before it started, settled or not.
func TestFileStreamAvailableNowWaitsForUnsettledFiles(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	src, mock := openMocked(t, mem, dir, nil)
	writeMod(t, dir, "old.txt", "old\n", -time.Hour)
	writeMod(t, dir, "new.txt", "new\n", 0)
	mock.Set(settleBase.Add(5 * time.Millisecond))
	var waited time.Duration
	src.settle.wait = func(_ context.Context, d time.Duration) error {
		waited += d
		mock.Add(d)
		return nil
	}
	target, err := src.PrepareAvailableNow(context.Background(), sources.Offset(`{"logOffset":-1}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(target) != `{"logOffset":1}` || waited != settleAfter-5*time.Millisecond {
		t.Fatalf("target %s after waiting %v", target, waited)
	}
	if got := readAll(t, src, `{"logOffset":-1}`, string(target)); strings.Join(got, ",") != "new,old" {
		t.Fatalf("rows %v", got)
	}
}

// A wait for files to settle ends when the query stops (its context is cancelled).
func TestFileStreamAvailableWaitEndsWithTheContext(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	src, mock := openMocked(t, mem, dir, nil)
	writeMod(t, dir, "new.txt", "new\n", 0)
	mock.Set(settleBase)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := src.LatestAndAvailable(ctx, sources.Offset(`{"logOffset":-1}`)); err != context.Canceled {
		t.Fatalf("got %v", err)
	}
}

// The files a file sink's commit log lists are complete: logged at once.
func TestFileStreamAdmitsCommittedFilesAtOnce(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	writeMod(t, dir, "part-00000-00000-a.txt", "committed\n", 0)
	info, err := os.Stat(filepath.Join(dir, "part-00000-00000-a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := WriteSinkLog(dir, 0, []SinkFileStatus{NewSinkFileStatus(filepath.Join(dir, "part-00000-00000-a.txt"), info)}); err != nil || !ok {
		t.Fatalf("write log: %v %v", ok, err)
	}
	src, _ := openMocked(t, mem, dir, nil)
	if got := latest(t, src); got != `{"logOffset":0}` {
		t.Fatalf("latest %s", got)
	}
	if got := readAll(t, src, `{"logOffset":-1}`, `{"logOffset":0}`); strings.Join(got, ",") != "committed" {
		t.Fatalf("rows %v", got)
	}
}
