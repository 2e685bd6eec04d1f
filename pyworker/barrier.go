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
// last task that joined left; one goroutine accepts and one per connection reads its request
// until it joins its round. All are stopped and waited for when the listener stops.
type Barrier struct {
	n int

	mu      sync.Mutex
	ln      net.Listener
	secrets []string // per partition
	joined  int
	round   []*barrierCall // per partition, the current round's calls
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
	if b.ln == nil {
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
		b.ln = ln
		b.round = make([]*barrierCall, b.n)
		b.arrived = 0
		b.conns = map[net.Conn]struct{}{}
		b.wg.Add(1)
		go b.accept(ln)
	}
	b.joined++
	return b.ln.Addr().(*net.TCPAddr).Port, b.secrets[partition], nil
}

// leave ends one joined task's use of the barrier; the last one stops the listener, closes
// every connection and waits for the goroutines.
func (b *Barrier) leave() {
	b.mu.Lock()
	b.joined--
	if b.joined > 0 || b.ln == nil {
		b.mu.Unlock()
		return
	}
	ln := b.ln
	b.ln = nil
	for c := range b.conns {
		c.Close()
	}
	b.conns = nil
	b.round = nil
	b.mu.Unlock()
	ln.Close()
	b.wg.Wait()
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

func (b *Barrier) accept(ln net.Listener) {
	defer b.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		if b.conns == nil { // stopped meanwhile
			b.mu.Unlock()
			c.Close()
			return
		}
		b.conns[c] = struct{}{}
		b.wg.Add(1)
		b.mu.Unlock()
		go b.serve(c)
	}
}

// serve authenticates one call, reads its request and adds it to the current round.
func (b *Barrier) serve(c net.Conn) {
	defer b.wg.Done()
	call, partition, err := b.readCall(c)
	if err != nil {
		b.drop(c)
		return
	}
	b.arrive(partition, call)
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
	for i, s := range b.secrets { // secrets never change once made
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
func (b *Barrier) arrive(partition int, call *barrierCall) {
	b.mu.Lock()
	if b.round == nil {
		b.mu.Unlock()
		b.drop(call.conn)
		return
	}
	if b.round[partition] != nil { // a second call of one task in a round: fail the round
		b.failRoundLocked()
		b.mu.Unlock()
		b.drop(call.conn)
		return
	}
	b.round[partition] = call
	b.arrived++
	if b.arrived < b.n {
		b.mu.Unlock()
		return
	}
	calls := b.round
	b.round = make([]*barrierCall, b.n)
	b.arrived = 0
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
		b.drop(c.conn)
	}
}

// failRoundLocked closes the current round's connections (their workers raise).
func (b *Barrier) failRoundLocked() {
	for i, c := range b.round {
		if c != nil {
			c.conn.Close()
			delete(b.conns, c.conn)
			b.round[i] = nil
		}
	}
	b.arrived = 0
}

// drop closes c and forgets it.
func (b *Barrier) drop(c net.Conn) {
	c.Close()
	b.mu.Lock()
	if b.conns != nil {
		delete(b.conns, c)
	}
	b.mu.Unlock()
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
