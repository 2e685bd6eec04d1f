package query

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/weirhq/weir/checkpoints"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
)

// A query with a checkpoint location keeps its durable progress in a checkpoints.Store opened
// on <location>/weir-pebble, one Store per running query, closed when the query ends. The store
// holds the query's metadata (persistent id, stateful operators, partition count), the offsets
// log, the commit log, source metadata and operator state snapshots, all under storeKey.

// CheckpointLocationConf is the session conf naming the default checkpoint root.
const CheckpointLocationConf = "spark.sql.streaming.checkpointLocation"

// storeKey is the key space of a location's store: one query per location.
const storeKey = "query"

// pebbleDir is the store's directory inside a checkpoint location.
const pebbleDir = "weir-pebble"

// checkpointLocation resolves a query's checkpoint location as Spark does: the
// "checkpointLocation" option, else the conf's root plus the query name (or a new UUID). ""
// means none (allowed for sinks that are not durable). The location, the conf's root with the
// name included, is resolved and checked by the file-access policy when it is opened
// (Manager.openCheckpoint).
func (m *Manager) checkpointLocation(spec Spec) string {
	for k, v := range spec.Options {
		if strings.EqualFold(k, "checkpointLocation") && v != "" {
			return v
		}
	}
	if m.env.Conf == nil {
		return ""
	}
	root, ok := m.env.Conf(CheckpointLocationConf)
	if !ok || root == "" {
		return ""
	}
	name := spec.Name
	if name == "" {
		name = newUUID()
	}
	return strings.TrimRight(root, "/") + "/" + name
}

// Locations are the checkpoint locations of running queries, by absolute path. One value is
// shared by the Managers of every session of one server (Env.Locations), so that two sessions
// cannot run queries on one location; another process holding it shows as the store's lock.
type Locations struct {
	mu   sync.Mutex
	held map[string]*Query
}

// NewLocations returns an empty set of held locations.
func NewLocations() *Locations { return &Locations{held: map[string]*Query{}} }

// claim makes q the owner of location dir. A query of the same manager holding it is returned
// to be stopped (Spark stops the active run when a query restarts); a query of another session
// holding it is an error.
func (l *Locations) claim(dir string, q *Query) (*Query, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if old, ok := l.held[dir]; ok && !old.terminated() {
		if old.m != q.m {
			return nil, sparkerr.Newf("java.lang.IllegalStateException", "CONCURRENT_QUERY", "",
				"Cannot start query with checkpoint location %s as another query using it is already active in "+
					"another session. Perhaps you are attempting to restart a query from checkpoint that is already "+
					"active.", dir)
		}
		return old, nil
	}
	l.held[dir] = q
	return nil, nil
}

// release gives up q's location.
func (l *Locations) release(dir string, q *Query) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[dir] == q {
		delete(l.held, dir)
	}
}

// checkpointMeta is the query's metadata record.
type checkpointMeta struct {
	ID string `json:"id"`
	// Partitions is the state partition count the checkpoint's state was written with.
	Partitions int `json:"partitions"`
	// Stateful describes the plan's stateful operators (see statefulOperators).
	Stateful []statefulOp `json:"stateful"`
	// Sources are the formats of the query's sources, in planning order.
	Sources []string `json:"sources"`
}

// checkpoint is a running query's open checkpoint.
type checkpoint struct {
	dir   string
	store *checkpoints.Store
	meta  checkpointMeta
	// fresh: the location held no metadata (first start).
	fresh bool
	// written counts each epoch's bytes written (progress' checkpointBytesWritten).
	written *checkpointBytes
}

// openCheckpoint opens (creating) the store at dir and checks the plan against the metadata of
// an earlier run; a first start writes it. An incompatible plan leaves the checkpoint as it was.
func openCheckpoint(dir string, want checkpointMeta) (*checkpoint, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, sparkerr.Newf(sparkerr.SparkException, "", "", "cannot create checkpoint location %s: %v", dir, err).Wrap(err)
	}
	store, err := checkpoints.Open(filepath.Join(dir, pebbleDir))
	if err != nil {
		return nil, sparkerr.Newf("java.lang.IllegalStateException", "CONCURRENT_QUERY", "",
			"Cannot open checkpoint location %s: %v. Perhaps another process runs a query from this checkpoint.",
			dir, err).Wrap(err)
	}
	cp := &checkpoint{dir: dir, store: store, written: newCheckpointBytes()}
	raw, ok, err := store.Metadata(storeKey)
	if err == nil && ok {
		err = json.Unmarshal(raw, &cp.meta)
	}
	if err != nil {
		_ = store.Close()
		return nil, sparkerr.Newf(sparkerr.SparkException, "", "", "cannot read checkpoint metadata at %s: %v", dir, err).Wrap(err)
	}
	if !ok {
		cp.fresh = true
		cp.meta = want
		b, err := json.Marshal(want)
		if err == nil {
			err = store.PutMetadata(storeKey, b)
		}
		if err != nil {
			_ = store.Close()
			return nil, sparkerr.Newf(sparkerr.SparkException, "", "", "cannot write checkpoint metadata at %s: %v", dir, err).Wrap(err)
		}
		return cp, nil
	}
	if err := compatible(cp.meta, want); err != nil {
		_ = store.Close()
		return nil, err
	}
	return cp, nil
}

// close closes the store.
func (cp *checkpoint) close() error { return cp.store.Close() }

// sourceMetadata is a source's MetadataStore in the checkpoint.
type sourceMetadata struct {
	store *checkpoints.Store
	index int
}

func (s sourceMetadata) Get() ([]byte, bool, error) { return s.store.SourceMetadata(storeKey, s.index) }
func (s sourceMetadata) Put(b []byte) error         { return s.store.PutSourceMetadata(storeKey, s.index, b) }

// stateBackend saves operator state snapshots in the checkpoint (flow.StateBackend), under
// state ids that survive stateless changes to the plan (see stateIDs).
type stateBackend struct {
	store   *checkpoints.Store
	ids     map[string]string
	written *checkpointBytes
}

func (b stateBackend) id(node string) string {
	if id, ok := b.ids[node]; ok {
		return id
	}
	return node
}

func (b stateBackend) Save(node string, partition int, epoch int64, data []byte) error {
	if err := b.store.PutState(storeKey, b.id(node), partition, epoch, data); err != nil {
		return err
	}
	b.written.add(epoch, len(data))
	return nil
}

func (b stateBackend) Load(node string, partition int, epoch int64) ([]byte, bool, error) {
	return b.store.State(storeKey, b.id(node), partition, epoch)
}

// stateIDs names the graph's nodes for their state: the planner numbers nodes in build order
// ("Aggregate#7"), so adding a filter would renumber every node above it; a node's state id is
// instead its kind and its rank among the nodes of that kind ("Aggregate/0"). Stateful nodes
// are never fused into stateless chains, and a change to the stateful operators themselves is
// refused at start (compatible), so ranks identify the same operators across restarts.
func stateIDs(g *flow.Graph) map[string]string {
	type named struct {
		name string
		num  int
	}
	byKind := map[string][]named{}
	seen := map[*flow.Node]bool{}
	var walk func(n *flow.Node)
	walk = func(n *flow.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		for _, in := range n.Inputs {
			walk(in.From)
		}
		i := strings.LastIndexByte(n.Name, '#')
		if i < 0 || strings.Contains(n.Name, "+") {
			return
		}
		kind := n.Name[:i]
		byKind[kind] = append(byKind[kind], named{n.Name, nodeNumber(n.Name)})
	}
	walk(g.Output)
	ids := map[string]string{}
	for kind, ns := range byKind {
		sort.Slice(ns, func(a, b int) bool { return ns[a].num < ns[b].num })
		for rank, n := range ns {
			ids[n.name] = kind + "/" + strconv.Itoa(rank)
		}
	}
	return ids
}
