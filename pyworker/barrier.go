package pyworker

import (
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Barrier is the server side of PySpark's BarrierTaskContext for the tasks of one barrier stage
// (mapInPandas / mapInArrow with barrier=True), as Spark's PythonRunner serves it for each task
// and its BarrierCoordinator syncs them. A task given a Barrier (Task.Barrier) runs with a
// BarrierTaskContext whose connInfo is the Barrier's loopback port and whose secret names the
// task's partition. BarrierTaskContext.barrier() and allGather(message) connect, authenticate
// (the secret, length-prefixed; the answer "ok") and send an int function (1 barrier, 2
// allGather followed by the length-prefixed message); the answer comes once every one of the
// stage's N tasks made its call of the same round: an int count and that many UTF strings —
// "success" for barrier(), every task's message in partition order for allGather. A round whose
// calls mix barrier() and allGather() fails: its connections are closed (the workers raise).
//
// The listener starts when the first task joins and stops, with every connection, when the
// last task that joined left (a run, barrierRun); one goroutine accepts and one per connection
// reads its request until it joins its round. All are stopped and waited for when the run stops;
// a task joining after that starts a new run.
type Barrier struct {
	n int

	mu      sync.Mutex
	secrets []string // per partition; never change once made
	joined  int
	run     *barrierRun // the listener's current run; nil while no task is joined
}

// barrierRun is one run of the listener, from the first join to the last leave: its
// connections, rounds and goroutines. A run that stopped stays stopped: a task joining later
// starts a new run, so a late connection or call of the old one never enters the new one's
// rounds and the old run's goroutines are waited for on their own WaitGroup.
type barrierRun struct {
	b       *Barrier
	ln      net.Listener
	round   []*barrierCall // per partition, the current round's calls; nil once stopped
	arrived int
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
}

// barrierCall is one task's call waiting for its round.
type barrierCall struct {
	conn     net.Conn
	function int32
	message  string
}

// Barrier functions (BarrierTaskContextMessageProtocol).
const (
	barrierFunction   = 1
	allGatherFunction = 2
)

// NewBarrier returns the barrier of a stage of n tasks (partitions 0..n-1); it starts nothing.
func NewBarrier(n int) *Barrier { return &Barrier{n: n} }

// join registers partition's task and returns the port and secret its BarrierTaskContext
// connects with, starting the listener if needed. Every join is followed by one leave.
func (b *Barrier) join(partition int) (int, string, error) {
	if partition < 0 || partition >= b.n {
		return 0, "", fmt.Errorf("pyworker: partition %d of a barrier stage of %d tasks", partition, b.n)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.run == nil {
		if b.secrets == nil {
			for range b.n {
				s, err := newSecret()
				if err != nil {
					return 0, "", err
				}
				b.secrets = append(b.secrets, s)
			}
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, "", workerFailure("cannot listen for barrier tasks: %v", err).Wrap(err)
		}
		r := &barrierRun{b: b, ln: ln, round: make([]*barrierCall, b.n), conns: map[net.Conn]struct{}{}}
		r.wg.Add(1)
		go r.accept()
		b.run = r
	}
	b.joined++
	return b.run.ln.Addr().(*net.TCPAddr).Port, b.secrets[partition], nil
}

// leave ends one joined task's use of the barrier; the last one stops the run: its listener
// and every connection closed, its goroutines waited for.
func (b *Barrier) leave() {
	b.mu.Lock()
	b.joined--
	r := b.run
	if b.joined > 0 || r == nil {
		b.mu.Unlock()
		return
	}
	b.run = nil
	for c := range r.conns {
		c.Close()
	}
	r.conns = nil
	r.round = nil
	b.mu.Unlock()
	r.ln.Close()
	r.wg.Wait()
}

// addresses is the "addresses" local property BarrierTaskContext.getTaskInfos reads: every
// task's address, in partition order.
func (b *Barrier) addresses(port int) string {
	a := make([]string, b.n)
	for i := range a {
		a[i] = "127.0.0.1:" + strconv.Itoa(port)
	}
	return strings.Join(a, ",")
}

func (r *barrierRun) accept() {
	defer r.wg.Done()
	b := r.b
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		if r.conns == nil { // stopped meanwhile
			b.mu.Unlock()
			c.Close()
			return
		}
		r.conns[c] = struct{}{}
		r.wg.Add(1)
		b.mu.Unlock()
		go r.serve(c)
	}
}

// serve authenticates one call, reads its request and adds it to the current round.
func (r *barrierRun) serve(c net.Conn) {
	defer r.wg.Done()
	call, partition, err := r.b.readCall(c)
	if err != nil {
		r.drop(c)
		return
	}
	r.arrive(partition, call)
}

// barrierAuthTimeout bounds a connection's authentication and request.
const barrierAuthTimeout = 15 * time.Second

func (b *Barrier) readCall(c net.Conn) (*barrierCall, int, error) {
	c.SetDeadline(time.Now().Add(barrierAuthTimeout))
	n, err := readInt(c)
	if err != nil {
		return nil, 0, err
	}
	if n < 0 || n > 1024 {
		return nil, 0, fmt.Errorf("invalid secret length %d", n)
	}
	got := make([]byte, n)
	if _, err := io.ReadFull(c, got); err != nil {
		return nil, 0, err
	}
	partition := -1
	for i, s := range b.secrets { // made before the first run started; never change
		if subtle.ConstantTimeCompare(got, []byte(s)) == 1 {
			partition = i
		}
	}
	reply := "ok"
	if partition < 0 {
		reply = "err"
	}
	if err := writeBytes(c, []byte(reply)); err != nil {
		return nil, 0, err
	}
	if partition < 0 {
		return nil, 0, errors.New("wrong secret")
	}
	f, err := readInt(c)
	if err != nil {
		return nil, 0, err
	}
	call := &barrierCall{conn: c, function: f}
	switch f {
	case barrierFunction:
	case allGatherFunction:
		m, err := readInt(c)
		if err != nil {
			return nil, 0, err
		}
		if m < 0 || m > 1<<30 {
			return nil, 0, fmt.Errorf("invalid allGather message length %d", m)
		}
		msg := make([]byte, m)
		if _, err := io.ReadFull(c, msg); err != nil {
			return nil, 0, err
		}
		call.message = string(msg)
	default:
		return nil, 0, fmt.Errorf("unrecognized barrier function %d", f)
	}
	c.SetDeadline(time.Time{})
	return call, partition, nil
}

// arrive adds partition's call to the round; the call completing it answers every call.
func (r *barrierRun) arrive(partition int, call *barrierCall) {
	b := r.b
	b.mu.Lock()
	if r.round == nil { // the run stopped
		b.mu.Unlock()
		r.drop(call.conn)
		return
	}
	if r.round[partition] != nil { // a second call of one task in a round: fail the round
		r.failRoundLocked()
		b.mu.Unlock()
		r.drop(call.conn)
		return
	}
	r.round[partition] = call
	r.arrived++
	if r.arrived < b.n {
		b.mu.Unlock()
		return
	}
	calls := r.round
	r.round = make([]*barrierCall, b.n)
	r.arrived = 0
	b.mu.Unlock()

	var answer []string
	for _, c := range calls {
		if c.function != calls[0].function {
			answer = nil // mixed functions: fail the round
			break
		}
		if c.function == barrierFunction {
			answer = []string{"success"}
		} else {
			answer = append(answer, c.message)
		}
	}
	for _, c := range calls {
		if answer != nil {
			c.conn.SetWriteDeadline(time.Now().Add(barrierAuthTimeout))
			writeStringList(c.conn, answer)
		}
		r.drop(c.conn)
	}
}

// failRoundLocked closes the current round's connections (their workers raise); the caller
// holds b.mu.
func (r *barrierRun) failRoundLocked() {
	for i, c := range r.round {
		if c != nil {
			c.conn.Close()
			delete(r.conns, c.conn)
			r.round[i] = nil
		}
	}
	r.arrived = 0
}

// drop closes c and forgets it.
func (r *barrierRun) drop(c net.Conn) {
	c.Close()
	r.b.mu.Lock()
	if r.conns != nil {
		delete(r.conns, c)
	}
	r.b.mu.Unlock()
}

// writeStringList writes an int count and that many UTF strings (as UTF8Deserializer reads).
func writeStringList(w io.Writer, ss []string) error {
	buf := binary.BigEndian.AppendUint32(nil, uint32(len(ss)))
	for _, s := range ss {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
		buf = append(buf, s...)
	}
	_, err := w.Write(buf)
	return err
}
