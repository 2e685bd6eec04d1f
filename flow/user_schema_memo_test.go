package flow

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// UserSchema answers the same schema for the same event schema (memoized) and the right one
// for each of many distinct event schemas sharing the memo's slots, metadata included.
func TestUserSchemaMemo(t *testing.T) {
	var events []*arrow.Schema
	for i := range 300 {
		md := arrow.NewMetadata([]string{"k"}, []string{string(rune('a' + i%26))})
		user := arrow.NewSchema([]arrow.Field{{Name: "c" + string(rune('a'+i%26)), Type: arrow.PrimitiveTypes.Int64}}, &md)
		events = append(events, arrow.NewSchema(EventSchema(user).Fields(), &md))
	}
	for round := range 2 {
		for i, ev := range events {
			got := UserSchema(ev)
			want := stripEventColumns(ev)
			if !got.Equal(want) || !got.Metadata().Equal(want.Metadata()) {
				t.Fatalf("round %d schema %d: %v, want %v", round, i, got, want)
			}
			if again := UserSchema(ev); again != got {
				t.Fatalf("schema %d: not memoized", i)
			}
		}
	}
}
