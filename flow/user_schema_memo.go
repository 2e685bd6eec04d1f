package flow

import (
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
)

// userSchemaMemo remembers UserSchema's answer for the event schemas it was last asked about,
// in a small direct-mapped table keyed by the event schema's address. Operators strip the
// event columns of every batch (UserColumns); building the user schema each time allocated a
// schema, its field slice and its name index per batch (3% of a `count(*) WHERE id % 7 = 3`'s
// CPU). A slot holds its event schema alive until another schema takes the slot: at most
// len(slots) schemas, a few KiB. Safe for concurrent use: a slot is replaced whole.
type userSchemaMemo struct {
	slots [64]atomic.Pointer[userSchemaPair]
}

type userSchemaPair struct{ event, user *arrow.Schema }

var userSchemas userSchemaMemo

// get returns event's user schema, memoized.
func (m *userSchemaMemo) get(event *arrow.Schema) *arrow.Schema {
	// Fibonacci hashing of the address: its top 6 bits pick the slot.
	h := uint64(uintptr(unsafe.Pointer(event))) * 0x9e3779b97f4a7c15 >> 58
	slot := &m.slots[h]
	if p := slot.Load(); p != nil && p.event == event {
		return p.user
	}
	user := stripEventColumns(event)
	slot.Store(&userSchemaPair{event: event, user: user})
	return user
}
