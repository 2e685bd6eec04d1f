package connect

import "testing"

func TestWithPython(t *testing.T) {
	o := defaultOptions()
	if o.python != "python3" {
		t.Errorf("default python = %q, want python3", o.python)
	}
	WithPython("/opt/py/bin/python")(&o)
	WithPython("")(&o) // empty keeps the previous choice
	if o.python != "/opt/py/bin/python" {
		t.Errorf("python = %q after WithPython", o.python)
	}
}
