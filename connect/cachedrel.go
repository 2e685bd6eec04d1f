package connect

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// resolveCachedRelations returns msg with every CachedLocalRelation and
// ChunkedCachedLocalRelation replaced by the LocalRelation the session's cache artifacts hold,
// so plan conversion (a pure function of the proto) never needs the session. msg is not
// modified; a copy is made only when something is replaced.
func resolveCachedRelations[M proto.Message](sess *session, alloc memory.Allocator, msg M) (M, error) {
	if !hasCachedRelation(msg.ProtoReflect()) {
		return msg, nil
	}
	out := proto.Clone(msg).(M)
	var firstErr error
	walkRelations(out.ProtoReflect(), func(rel *pb.Relation) {
		if firstErr != nil {
			return
		}
		var local *pb.LocalRelation
		var err error
		switch r := rel.GetRelType().(type) {
		case *pb.Relation_CachedLocalRelation:
			local, err = cachedLocalRelation(sess, r.CachedLocalRelation.GetHash())
		case *pb.Relation_ChunkedCachedLocalRelation:
			local, err = chunkedCachedLocalRelation(sess, alloc, r.ChunkedCachedLocalRelation)
		default:
			return
		}
		if err != nil {
			firstErr = err
			return
		}
		rel.RelType = &pb.Relation_LocalRelation{LocalRelation: local}
	})
	return out, firstErr
}

var relationDescriptor = (&pb.Relation{}).ProtoReflect().Descriptor()

// walkRelations calls fn on every Relation message under m (parents before children).
func walkRelations(m protoreflect.Message, fn func(*pb.Relation)) {
	if m.Descriptor() == relationDescriptor {
		if rel, ok := m.Interface().(*pb.Relation); ok {
			fn(rel)
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind {
			return true
		}
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkRelations(l.Get(i).Message(), fn)
			}
		case fd.IsMap():
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					walkRelations(mv.Message(), fn)
					return true
				})
			}
		default:
			walkRelations(v.Message(), fn)
		}
		return true
	})
}

func hasCachedRelation(m protoreflect.Message) bool {
	found := false
	walkRelations(m, func(rel *pb.Relation) {
		switch rel.GetRelType().(type) {
		case *pb.Relation_CachedLocalRelation, *pb.Relation_ChunkedCachedLocalRelation:
			found = true
		}
	})
	return found
}

func cacheMiss(hash string) *sparkerr.Error {
	return invalidPlan("Not found any cached local relation with the hash: %s in the session.", hash)
}

// cachedLocalRelation decodes the serialized LocalRelation stored as "cache/<hash>".
func cachedLocalRelation(sess *session, hash string) (*pb.LocalRelation, error) {
	blob, ok := sess.artifacts.cached(hash)
	if !ok {
		return nil, cacheMiss(hash)
	}
	local := &pb.LocalRelation{}
	if err := proto.Unmarshal(blob, local); err != nil {
		return nil, invalidPlan("Cached local relation %s is not a LocalRelation: %v", hash, err)
	}
	return local, nil
}

// chunkedCachedLocalRelation joins the IPC streams of the data chunks into one stream and
// takes the schema string from the schema chunk.
func chunkedCachedLocalRelation(sess *session, alloc memory.Allocator, c *pb.ChunkedCachedLocalRelation) (*pb.LocalRelation, error) {
	local := &pb.LocalRelation{}
	if c.SchemaHash != nil {
		schema, ok := sess.artifacts.cached(c.GetSchemaHash())
		if !ok {
			return nil, cacheMiss(c.GetSchemaHash())
		}
		s := string(schema)
		local.Schema = &s
	}
	if len(c.GetDataHashes()) == 0 {
		return local, nil
	}
	var out bytes.Buffer
	var w *ipc.Writer
	for _, h := range c.GetDataHashes() {
		chunk, ok := sess.artifacts.cached(h)
		if !ok {
			return nil, cacheMiss(h)
		}
		r, err := ipc.NewReader(bytes.NewReader(chunk), ipc.WithAllocator(alloc))
		if err != nil {
			return nil, invalidPlan("Cached local relation chunk %s is not an Arrow IPC stream: %v", h, err)
		}
		if w == nil {
			w = ipc.NewWriter(&out, ipc.WithSchema(r.Schema()), ipc.WithAllocator(alloc))
		}
		for r.Next() {
			if err := w.Write(r.RecordBatch()); err != nil {
				r.Release()
				return nil, invalidPlan("Cached local relation chunk %s: %v", h, err)
			}
		}
		err = r.Err()
		r.Release()
		if err != nil {
			return nil, invalidPlan("Cached local relation chunk %s: %v", h, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, sparkerr.Internal("joining cached relation chunks: %v", err)
	}
	local.Data = out.Bytes()
	return local, nil
}
