package connect

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sql/logical"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// persistKey identifies a relation for df.persist()/cache() bookkeeping as Spark's cache lookup
// does by plan: two DataFrames built the same way (df.select(f("id")) twice) share a key though
// the client numbers their plans apart. The key hashes the relation with its plan ids renumbered
// in order of first appearance (so references between its nodes keep their structure) and the
// origins (the client's call sites) cleared; everything else (literals, inline data, pickled
// functions) is part of the key.
func persistKey(rel *pb.Relation) string {
	c := proto.Clone(rel)
	ids := map[int64]int64{}
	canonicalizePlanIDs(c.ProtoReflect(), ids)
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(c)
	if err != nil {
		// A relation that does not marshal has no key it could share with another.
		return fmt.Sprintf("unmarshalable:%p", rel)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// canonicalizePlanIDs renumbers every plan_id field under m (1, 2, … by first appearance, in
// field-number order) and clears every origin field.
func canonicalizePlanIDs(m protoreflect.Message, ids map[int64]int64) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		switch {
		case fd.Name() == "origin":
			m.Clear(fd)
		case fd.Name() == "plan_id" && fd.Kind() == protoreflect.Int64Kind && !fd.IsList():
			old := m.Get(fd).Int()
			id, ok := ids[old]
			if !ok {
				id = int64(len(ids) + 1)
				ids[old] = id
			}
			m.Set(fd, protoreflect.ValueOfInt64(id))
		case fd.IsMap():
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				// Visit values in key order so the numbering does not depend on map iteration.
				mp := m.Get(fd).Map()
				keys := make([]protoreflect.MapKey, 0, mp.Len())
				mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
					keys = append(keys, k)
					return true
				})
				sortMapKeys(keys)
				for _, k := range keys {
					canonicalizePlanIDs(mp.Mutable(k).Message(), ids)
				}
			}
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			if fd.IsList() {
				l := m.Mutable(fd).List()
				for j := 0; j < l.Len(); j++ {
					canonicalizePlanIDs(l.Get(j).Message(), ids)
				}
			} else {
				canonicalizePlanIDs(m.Mutable(fd).Message(), ids)
			}
		}
	}
}

func sortMapKeys(keys []protoreflect.MapKey) {
	sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i].Interface()) < fmt.Sprint(keys[j].Interface()) })
}

// storageLevel is a client's storage level as the engine keeps it.
func storageLevel(l *pb.StorageLevel) logical.StorageLevel {
	return logical.StorageLevel{UseDisk: l.GetUseDisk(), UseMemory: l.GetUseMemory(), UseOffHeap: l.GetUseOffHeap(),
		Deserialized: l.GetDeserialized(), Replication: int(l.GetReplication())}
}
