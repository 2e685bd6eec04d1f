package connect

import (
	"reflect"
	"testing"

	"github.com/weirhq/weir/query"
)

// queued is a server-side listener without a worker: the test reads what would be sent.
func queued(id string) *serverListener {
	return &serverListener{id: id, wake: make(chan struct{}, 1)}
}

func (l *serverListener) kinds() []int32 {
	var out []int32
	for _, ev := range l.queue {
		out = append(out, ev.kind)
	}
	return out
}

// TestServerListenersOrderStartedFirst checks that a query's events reach a server-side listener
// after its started event (which startStream posts once the query runs), while the events of
// other, already announced queries pass straight through, and that listeners come and go.
func TestServerListenersOrderStartedFirst(t *testing.T) {
	var ls serverListeners
	var feed query.Listener
	registered := 0
	register := func(l query.Listener) func() {
		feed, registered = l, registered+1
		return func() { registered-- }
	}
	a, b := queued("a"), queued("b")
	if ls.add(a, register, "s") != nil || ls.add(b, register, "s") != nil || ls.add(queued("a"), register, "s") == nil {
		t.Fatal("add: want a and b added once each")
	}
	if registered != 1 {
		t.Fatalf("feed registered %d times, want once", registered)
	}
	progress := func(id string) query.Event {
		return query.Event{Type: query.ProgressEvent, JSON: `{"progress":{"id":"` + id + `","batchId":0}}`}
	}
	ls.beginStart()
	ls.endStart("q1", `{"id":"q1"}`)
	ls.beginStart()
	feed.OnEvent(progress("q2")) // q2 runs before its start answered: held
	feed.OnEvent(progress("q1")) // q1 was announced: passes
	if got := a.kinds(); !reflect.DeepEqual(got, []int32{workerQueryStarted, workerQueryProgress}) {
		t.Fatalf("before q2's start ended: %v", got)
	}
	ls.endStart("q2", `{"id":"q2"}`)
	feed.OnEvent(query.Event{Type: query.TerminatedEvent, JSON: `{"id":"q2"}`})
	want := []int32{workerQueryStarted, workerQueryProgress, workerQueryStarted, workerQueryProgress, workerQueryTerminated}
	for _, l := range []*serverListener{a, b} {
		if got := l.kinds(); !reflect.DeepEqual(got, want) {
			t.Fatalf("listener %s: %v, want %v", l.id, got, want)
		}
	}
	if got := eventQueryID(b.queue[3].json); got != "q2" {
		t.Fatalf("4th event is of %q, want q2", got)
	}
	// A failed start releases what it held.
	ls.beginStart()
	feed.OnEvent(progress("old"))
	ls.endStart("", "")
	if n := len(a.queue); n != 6 {
		t.Fatalf("after a failed start: %d events, want 6", n)
	}
	if ls.remove("a") != a || ls.remove("a") != nil {
		t.Fatal("remove a: want it once")
	}
	if ids := ls.ids(); !reflect.DeepEqual(ids, []string{"b"}) || registered != 1 {
		t.Fatalf("after removing a: ids %v, feed registered %d", ids, registered)
	}
	ls.remove("b")
	if registered != 0 {
		t.Fatal("the feed stays registered without listeners")
	}
	ls.closeAll()
	if err := ls.add(queued("c"), register, "s"); err == nil || registered != 0 {
		t.Fatalf("add after the session closed: %v, feed registered %d", err, registered)
	}
}
