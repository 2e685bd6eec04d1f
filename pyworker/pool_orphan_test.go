package pyworker

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// orphanRoleEnv gives TestPoolOrphanHelper its role in TestPoolDiesWithItsProcess: "pool" runs a
// pool mid-task until killed; "reaper" runs the pool process, kills it with SIGKILL and watches
// its daemon and worker exit. The reaper is a child subreaper so that it, not pid 1 (which may
// never reap), reaps the orphaned daemon: the test leaves no zombie behind.
const orphanRoleEnv = "WEIR_PYWORKER_ORPHAN_ROLE"

// TestPoolOrphanHelper is not a test on its own: it acts only in TestPoolDiesWithItsProcess's
// child processes, and checks nothing without the environment variable.
func TestPoolOrphanHelper(t *testing.T) {
	switch os.Getenv(orphanRoleEnv) {
	case "pool":
		orphanPool(t)
	case "reaper":
		orphanReaper(t)
	}
}

// orphanPool starts a task whose function sleeps, prints the daemon's and the worker's pids and
// waits to be killed.
func orphanPool(t *testing.T) {
	p := newTestPool(t, 1)
	s, err := p.Open(context.Background(), task(t, SQLScalarPandasUDF, nil, UDF{Command: command(t, "sleeps"), ArgOffsets: []int{0}}))
	if err != nil {
		t.Fatal(err)
	}
	rec := longs(memory.DefaultAllocator, []string{"a"}, []any{1})
	if err := s.Send(context.Background(), one(rec)); err != nil {
		t.Fatal(err)
	}
	if err := s.CloseSend(context.Background()); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("pids %d %d\n", p.daemon.pid, s.Pid())
	time.Sleep(time.Minute)
}

// orphanReaper runs orphanPool in a child, kills it with SIGKILL once it reported its pids, and
// checks the daemon and the worker exit by themselves, reaping what is orphaned to it.
func orphanReaper(t *testing.T) {
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Fatalf("prctl(PR_SET_CHILD_SUBREAPER): %v", errno)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPoolOrphanHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), orphanRoleEnv+"=pool")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var daemonPid, workerPid int
	for lines.Scan() {
		if _, err := fmt.Sscanf(lines.Text(), "pids %d %d", &daemonPid, &workerPid); err == nil {
			break
		}
	}
	if daemonPid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the pool process reported no pids")
	}
	if gone(daemonPid) || gone(workerPid) {
		t.Fatalf("daemon %d or worker %d not running before the kill", daemonPid, workerPid)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for !(gone(daemonPid) && gone(workerPid)) && time.Now().Before(deadline) {
		var ws syscall.WaitStatus
		if pid, _ := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, pid := range []int{daemonPid, workerPid} {
		if !gone(pid) {
			t.Errorf("process %d outlived the killed pool's process", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	fmt.Printf("checked daemon %d and worker %d\n", daemonPid, workerPid)
}

// TestPoolDiesWithItsProcess kills -9 a process running a pool mid-task: the daemon sees its
// stdin close and takes its workers with it.
func TestPoolDiesWithItsProcess(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestPoolOrphanHelper$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), orphanRoleEnv+"=reaper", "WEIR_TEST_PYTHON="+testPython(t))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "checked daemon") {
		t.Fatalf("reaper process: %v\n%s", err, out)
	}
}
