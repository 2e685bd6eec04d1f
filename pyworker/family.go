package pyworker

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow"
)

// family is how worker.py exchanges the data of a set of eval types: the eval conf and command
// section it reads before the data, how each input unit (Group) is framed, and how its output
// section is decoded. Each family registers its eval types from an init function of its own file
// (arrow_families.go; the pickled kinds add theirs the same way).
type family struct {
	// evalConf is the EvalConf worker.py reads after the runner conf; first is the first input
	// unit (nil when the input is empty), since the header is written with it.
	evalConf func(t *Task, first *Group) (map[string]string, error)
	// writeCommand writes what main reads after the confs (read_udfs; read_command for NON_UDF).
	writeCommand func(w io.Writer, t *Task) error
	// newInput returns the encoder of one task's input.
	newInput func(t *Task) inputEncoder
	// decode reads one item of output that starts with lead (an int that is not
	// PYTHON_EXCEPTION_THROWN or TIMING_DATA) and passes each result batch to emit, which takes
	// ownership of it.
	decode func(lead int32, r io.Reader, t *Task, emit func(arrow.RecordBatch)) error
}

// inputEncoder frames one task's input units as worker.py's deserializer reads them.
type inputEncoder interface {
	// send writes one input unit.
	send(w io.Writer, g Group) error
	// closeSend writes the end of the input (before the END_OF_STREAM every task ends with).
	closeSend(w io.Writer) error
}

// families maps the eval types Weir runs to their family; filled by init functions only.
var families = map[EvalType]*family{}

func registerFamily(f *family, types ...EvalType) {
	for _, t := range types {
		if families[t] != nil {
			panic("pyworker: eval type registered twice")
		}
		families[t] = f
	}
}

// noEvalConf is the empty eval conf most kinds take.
func noEvalConf(*Task, *Group) (map[string]string, error) { return nil, nil }
