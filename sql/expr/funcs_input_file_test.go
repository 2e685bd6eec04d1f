package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestInputFileFunctionsReadTheBatchEnvironment: over a batch whose schema carries an
// InputFile the functions give its URI, start and length on every row; without one, ” and -1.
func TestInputFileFunctionsReadTheBatchEnvironment(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	f := InputFile{URI: "file:///data/part-0.parquet", Start: 0, Length: 490}
	md := f.Metadata()
	with := array.NewRecordBatch(arrow.NewSchema(nil, &md), nil, 3)
	defer with.Release()
	without := env.emptyBatch(2)
	defer without.Release()
	if got, ok := InputFileOf(with.Schema()); !ok || got != f {
		t.Fatalf("InputFileOf = %+v, %v; want %+v", got, ok, f)
	}
	for _, c := range []struct {
		name       string
		with, none any
	}{
		{"input_file_name", f.URI, ""},
		{"input_file_block_start", int64(0), int64(-1)},
		{"input_file_block_length", int64(490), int64(-1)},
	} {
		e, err := Bind(c.name, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if e.Nullable() || IsDeterministic(e) || e.String() != c.name+"()" {
			t.Errorf("%s: nullable %v, deterministic %v, name %q", c.name, e.Nullable(), IsDeterministic(e), e.String())
		}
		vals, err := env.eval(e, with)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if v != c.with {
				t.Errorf("%s row %d over a file's batch = %v, want %v", c.name, i, v, c.with)
			}
		}
		vals, err = env.eval(e, without)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if v != c.none {
				t.Errorf("%s row %d without a file = %v, want %v", c.name, i, v, c.none)
			}
		}
	}
}
