package pickle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/weirhq/weir/sparkerr"
)

// PickleExceptionClass is the Java class of Pyrolite's unpickling errors; Spark fails the task
// with it when a worker's output cannot be read.
const PickleExceptionClass = "net.razorvine.pickle.PickleException"

// MaxIntBytes bounds the two's-complement length of one pickled int (LONG1/LONG4/LONG): a
// 512 Ki-bit integer. Longer ones are rejected rather than parsed.
const MaxIntBytes = 1 << 16

func pickleError(format string, args ...any) *sparkerr.Error {
	return sparkerr.Newf(PickleExceptionClass, "", "", "invalid pickle: "+format, args...)
}

// Decode reads one pickle (protocols 0-5, as CPython's pickle.dumps writes it) and returns the
// object it holds (see the Value types in value.go). Only the builtin containers and scalars and a
// fixed set of classes (datetime, decimal.Decimal, bytearray/bytes, set/frozenset, complex) are
// accepted; any other global, persistent ids, extensions and out-of-band buffers are errors.
// Work and memory are linear in len(data): every opcode pushes at most one object, and lengths
// are checked against the remaining input before anything is allocated. Bytes after STOP are an
// error. Decoded objects may share memoized parts (even be cyclic); FromJava bounds its walk.
func Decode(data []byte) (any, error) {
	d := decoder{data: data}
	v, err := d.run()
	if err != nil {
		return nil, err
	}
	return v, nil
}

type decoder struct {
	data  []byte
	pos   int
	stack []any
	marks []int
	memo  map[uint64]any
}

func (d *decoder) need(n uint64) ([]byte, error) {
	if n > uint64(len(d.data)-d.pos) {
		return nil, pickleError("truncated at byte %d: %d more bytes needed, %d left", d.pos, n, len(d.data)-d.pos)
	}
	b := d.data[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return b, nil
}

func (d *decoder) line() ([]byte, error) {
	i := bytes.IndexByte(d.data[d.pos:], '\n')
	if i < 0 {
		return nil, pickleError("truncated at byte %d: no end of line", d.pos)
	}
	b := d.data[d.pos : d.pos+i]
	d.pos += i + 1
	return b, nil
}

func (d *decoder) push(v any) { d.stack = append(d.stack, v) }

func (d *decoder) pop() (any, error) {
	if len(d.stack) == 0 || (len(d.marks) > 0 && len(d.stack) == d.marks[len(d.marks)-1]) {
		return nil, pickleError("stack underflow at byte %d", d.pos)
	}
	v := d.stack[len(d.stack)-1]
	d.stack = d.stack[:len(d.stack)-1]
	return v, nil
}

func (d *decoder) top() (any, error) {
	if len(d.stack) == 0 || (len(d.marks) > 0 && len(d.stack) == d.marks[len(d.marks)-1]) {
		return nil, pickleError("stack underflow at byte %d", d.pos)
	}
	return d.stack[len(d.stack)-1], nil
}

// popMark pops the items above the last MARK (a fresh slice) and the mark itself.
func (d *decoder) popMark() ([]any, error) {
	if len(d.marks) == 0 {
		return nil, pickleError("no MARK on the stack at byte %d", d.pos)
	}
	m := d.marks[len(d.marks)-1]
	d.marks = d.marks[:len(d.marks)-1]
	items := make([]any, len(d.stack)-m)
	copy(items, d.stack[m:])
	d.stack = d.stack[:m]
	return items, nil
}

func (d *decoder) put(idx uint64) error {
	v, err := d.top()
	if err != nil {
		return err
	}
	if d.memo == nil {
		d.memo = make(map[uint64]any)
	}
	d.memo[idx] = v
	return nil
}

func (d *decoder) get(idx uint64) error {
	v, ok := d.memo[idx]
	if !ok {
		return pickleError("memo key %d not found at byte %d", idx, d.pos)
	}
	d.push(v)
	return nil
}

func (d *decoder) run() (any, error) {
	for d.pos < len(d.data) {
		at := d.pos
		op := d.data[d.pos]
		d.pos++
		if err := d.step(op); err != nil {
			return nil, err
		}
		if op == opStop {
			if len(d.stack) != 1 || len(d.marks) != 0 {
				return nil, pickleError("STOP at byte %d with %d objects and %d marks on the stack", at, len(d.stack), len(d.marks))
			}
			if d.pos != len(d.data) {
				return nil, pickleError("%d bytes after STOP", len(d.data)-d.pos)
			}
			return d.stack[0], nil
		}
	}
	return nil, pickleError("no STOP opcode")
}

func (d *decoder) step(op byte) error {
	switch op {
	case opStop:
		return nil
	case opProto:
		b, err := d.need(1)
		if err != nil {
			return err
		}
		if b[0] > 5 {
			return pickleError("unsupported protocol %d", b[0])
		}
	case opFrame:
		b, err := d.need(8)
		if err != nil {
			return err
		}
		if n := binary.LittleEndian.Uint64(b); n > uint64(len(d.data)-d.pos) {
			return pickleError("frame of %d bytes exceeds the %d left", n, len(d.data)-d.pos)
		}
	case opMark:
		d.marks = append(d.marks, len(d.stack))
	case opPop:
		if len(d.marks) > 0 && len(d.stack) == d.marks[len(d.marks)-1] {
			d.marks = d.marks[:len(d.marks)-1] // CPython: POP of a bare MARK pops the mark
			return nil
		}
		_, err := d.pop()
		return err
	case opPopMark:
		_, err := d.popMark()
		return err
	case opDup:
		v, err := d.top()
		if err != nil {
			return err
		}
		d.push(v)
	case opNone:
		d.push(nil)
	case opNewTrue:
		d.push(true)
	case opNewFalse:
		d.push(false)
	case opBinInt:
		b, err := d.need(4)
		if err != nil {
			return err
		}
		d.push(int64(int32(binary.LittleEndian.Uint32(b))))
	case opBinInt1:
		b, err := d.need(1)
		if err != nil {
			return err
		}
		d.push(int64(b[0]))
	case opBinInt2:
		b, err := d.need(2)
		if err != nil {
			return err
		}
		d.push(int64(binary.LittleEndian.Uint16(b)))
	case opInt:
		return d.textInt(true)
	case opLong:
		return d.textInt(false)
	case opLong1:
		b, err := d.need(1)
		if err != nil {
			return err
		}
		return d.binLong(uint64(b[0]))
	case opLong4:
		b, err := d.need(4)
		if err != nil {
			return err
		}
		n := int32(binary.LittleEndian.Uint32(b))
		if n < 0 {
			return pickleError("LONG4 with negative length %d", n)
		}
		return d.binLong(uint64(n))
	case opBinFloat:
		b, err := d.need(8)
		if err != nil {
			return err
		}
		d.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case opFloat:
		l, err := d.line()
		if err != nil {
			return err
		}
		f, perr := strconv.ParseFloat(string(l), 64)
		if perr != nil {
			return pickleError("FLOAT %q: %v", l, perr)
		}
		d.push(f)
	case opShortBinUnicode:
		return d.sized(1, d.pushUnicode)
	case opBinUnicode:
		return d.sized(4, d.pushUnicode)
	case opBinUnicode8:
		return d.sized(8, d.pushUnicode)
	case opShortBinString:
		return d.sized(1, d.pushLatin1)
	case opBinString:
		return d.sized(4, d.pushLatin1)
	case opUnicode:
		l, err := d.line()
		if err != nil {
			return err
		}
		s, uerr := rawUnicodeEscape(l)
		if uerr != nil {
			return uerr
		}
		d.push(s)
	case opShortBinBytes:
		return d.sized(1, d.pushBytes)
	case opBinBytes:
		return d.sized(4, d.pushBytes)
	case opBinBytes8, opByteArray8:
		return d.sized(8, d.pushBytes)
	case opEmptyTuple:
		d.push(Tuple{})
	case opTuple1, opTuple2, opTuple3:
		n := int(op-opTuple1) + 1
		if len(d.stack) < n || (len(d.marks) > 0 && len(d.stack)-n < d.marks[len(d.marks)-1]) {
			return pickleError("stack underflow at byte %d", d.pos)
		}
		t := make(Tuple, n)
		copy(t, d.stack[len(d.stack)-n:])
		d.stack = d.stack[:len(d.stack)-n]
		d.push(t)
	case opTuple:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		d.push(Tuple(items))
	case opEmptyList:
		d.push(&List{})
	case opList:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		d.push(&List{Items: items})
	case opAppend:
		v, err := d.pop()
		if err != nil {
			return err
		}
		return d.appendTo([]any{v})
	case opAppends:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		return d.appendTo(items)
	case opEmptyDict:
		d.push(&Dict{})
	case opDict:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		m := &Dict{}
		if err := setItems(m, items); err != nil {
			return err
		}
		d.push(m)
	case opSetItem:
		v, err := d.pop()
		if err != nil {
			return err
		}
		k, err := d.pop()
		if err != nil {
			return err
		}
		return d.setItemsOnTop([]any{k, v})
	case opSetItems:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		return d.setItemsOnTop(items)
	case opEmptySet:
		d.push(&Set{})
	case opAddItems:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		top, err := d.top()
		if err != nil {
			return err
		}
		s, ok := top.(*Set)
		if !ok {
			return pickleError("ADDITEMS to %s at byte %d", typeName(top), d.pos)
		}
		s.Items = append(s.Items, items...)
	case opFrozenSet:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		d.push(&Set{Items: items})
	case opGlobal:
		module, err := d.line()
		if err != nil {
			return err
		}
		name, err := d.line()
		if err != nil {
			return err
		}
		d.push(global{string(module), string(name)})
	case opStackGlobal:
		name, err := d.pop()
		if err != nil {
			return err
		}
		module, err := d.pop()
		if err != nil {
			return err
		}
		ms, ok1 := module.(string)
		ns, ok2 := name.(string)
		if !ok1 || !ok2 {
			return pickleError("STACK_GLOBAL of %s, %s at byte %d", typeName(module), typeName(name), d.pos)
		}
		d.push(global{ms, ns})
	case opReduce, opNewObj:
		args, err := d.pop()
		if err != nil {
			return err
		}
		callable, err := d.pop()
		if err != nil {
			return err
		}
		t, ok := args.(Tuple)
		if !ok {
			return pickleError("REDUCE/NEWOBJ arguments are %s, not a tuple, at byte %d", typeName(args), d.pos)
		}
		v, err := construct(callable, t)
		if err != nil {
			return err
		}
		d.push(v)
	case opPut:
		l, err := d.line()
		if err != nil {
			return err
		}
		idx, perr := strconv.ParseUint(string(l), 10, 32)
		if perr != nil {
			return pickleError("PUT %q: %v", l, perr)
		}
		return d.put(idx)
	case opBinPut:
		b, err := d.need(1)
		if err != nil {
			return err
		}
		return d.put(uint64(b[0]))
	case opLongBinPut:
		b, err := d.need(4)
		if err != nil {
			return err
		}
		return d.put(uint64(binary.LittleEndian.Uint32(b)))
	case opMemoize:
		return d.put(uint64(len(d.memo)))
	case opGet:
		l, err := d.line()
		if err != nil {
			return err
		}
		idx, perr := strconv.ParseUint(string(l), 10, 32)
		if perr != nil {
			return pickleError("GET %q: %v", l, perr)
		}
		return d.get(idx)
	case opBinGet:
		b, err := d.need(1)
		if err != nil {
			return err
		}
		return d.get(uint64(b[0]))
	case opLongBinGet:
		b, err := d.need(4)
		if err != nil {
			return err
		}
		return d.get(uint64(binary.LittleEndian.Uint32(b)))
	case opPersID, opBinPersID, opExt1, opExt2, opExt4, opInst, opObj, opBuild, opNewObjEx,
		opNextBuffer, opReadonlyBuffer, opString:
		return pickleError("unsupported opcode 0x%02x at byte %d", op, d.pos-1)
	default:
		return pickleError("unknown opcode 0x%02x at byte %d", op, d.pos-1)
	}
	return nil
}

// sized reads a little-endian length of width bytes, then that many bytes, and hands them to f.
func (d *decoder) sized(width int, f func([]byte) error) error {
	b, err := d.need(uint64(width))
	if err != nil {
		return err
	}
	var n uint64
	switch width {
	case 1:
		n = uint64(b[0])
	case 4:
		n = uint64(binary.LittleEndian.Uint32(b))
	default:
		n = binary.LittleEndian.Uint64(b)
	}
	payload, err := d.need(n)
	if err != nil {
		return err
	}
	return f(payload)
}

func (d *decoder) pushUnicode(b []byte) error {
	// CPython encodes str as UTF-8 with surrogatepass; a lone surrogate has no Java/Go form
	// either way, so it becomes U+FFFD like any other invalid sequence.
	if utf8.Valid(b) {
		d.push(string(b))
	} else {
		d.push(string(bytes.ToValidUTF8(b, []byte("\uFFFD"))))
	}
	return nil
}

func (d *decoder) pushLatin1(b []byte) error {
	d.push(latin1(b))
	return nil
}

func (d *decoder) pushBytes(b []byte) error {
	d.push(Bytes(bytes.Clone(b)))
	return nil
}

func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// textInt reads INT / LONG (protocol 0): "00"/"01" are False/True for INT.
func (d *decoder) textInt(isInt bool) error {
	l, err := d.line()
	if err != nil {
		return err
	}
	if isInt && string(l) == "00" {
		d.push(false)
		return nil
	}
	if isInt && string(l) == "01" {
		d.push(true)
		return nil
	}
	if len(l) > 0 && l[len(l)-1] == 'L' {
		l = l[:len(l)-1]
	}
	if len(l) > maxDecimalDigits+1 {
		return pickleError("integer of %d digits is too large (at most %d)", len(l), maxDecimalDigits)
	}
	n, ok := new(big.Int).SetString(string(l), 10)
	if !ok {
		return pickleError("INT/LONG %.40q is not an integer", l)
	}
	d.push(normInt(n))
	return nil
}

// binLong reads n bytes of little-endian two's complement (LONG1 / LONG4).
func (d *decoder) binLong(n uint64) error {
	if n > MaxIntBytes {
		return pickleError("integer of %d bytes is too large (at most %d)", n, MaxIntBytes)
	}
	b, err := d.need(n)
	if err != nil {
		return err
	}
	if n <= 8 {
		var u uint64
		for i := len(b) - 1; i >= 0; i-- {
			u = u<<8 | uint64(b[i])
		}
		if n > 0 && n < 8 && b[n-1]&0x80 != 0 {
			u |= ^uint64(0) << (8 * n) // sign-extend
		}
		d.push(int64(u))
		return nil
	}
	be := make([]byte, n)
	for i := range b {
		be[len(b)-1-i] = b[i]
	}
	v := new(big.Int).SetBytes(be)
	if b[n-1]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*n)))
	}
	d.push(normInt(v))
	return nil
}

// normInt returns v as an int64 when it fits.
func normInt(v *big.Int) any {
	if v.IsInt64() {
		return v.Int64()
	}
	return v
}

func (d *decoder) appendTo(items []any) error {
	top, err := d.top()
	if err != nil {
		return err
	}
	l, ok := top.(*List)
	if !ok {
		return pickleError("APPEND(S) to %s at byte %d", typeName(top), d.pos)
	}
	l.Items = append(l.Items, items...)
	return nil
}

func (d *decoder) setItemsOnTop(items []any) error {
	top, err := d.top()
	if err != nil {
		return err
	}
	m, ok := top.(*Dict)
	if !ok {
		return pickleError("SETITEM(S) on %s at byte %d", typeName(top), d.pos)
	}
	return setItems(m, items)
}

func setItems(m *Dict, items []any) error {
	if len(items)%2 != 0 {
		return pickleError("odd number of items (%d) for a dict", len(items))
	}
	for i := 0; i < len(items); i += 2 {
		m.Keys = append(m.Keys, items[i])
		m.Values = append(m.Values, items[i+1])
	}
	return nil
}

// construct applies an allowed class or function to its arguments (REDUCE / NEWOBJ).
func construct(callable any, args Tuple) (any, error) {
	g, ok := callable.(global)
	if !ok {
		return nil, pickleError("cannot call %s", typeName(callable))
	}
	switch g.module + "." + g.name {
	case "decimal.Decimal":
		if len(args) == 1 {
			if s, ok := args[0].(string); ok {
				if !validDecimal(s) {
					return nil, pickleError("decimal.Decimal(%.40q) is not a finite number of at most %d digits", s, maxDecimalDigits)
				}
				return Decimal(s), nil
			}
		}
	case "builtins.bytearray", "__builtin__.bytearray", "builtins.bytes", "__builtin__.bytes":
		switch {
		case len(args) == 0:
			return Bytes{}, nil
		case len(args) == 1:
			if b, ok := args[0].(Bytes); ok {
				return b, nil
			}
		case len(args) == 2:
			if s, ok := args[0].(string); ok {
				return latin1Bytes(s)
			}
		}
	case "_codecs.encode":
		if len(args) == 2 {
			if s, ok := args[0].(string); ok {
				return latin1Bytes(s)
			}
		}
	case "builtins.set", "__builtin__.set", "builtins.frozenset", "__builtin__.frozenset":
		if len(args) == 0 {
			return &Set{}, nil
		}
		if len(args) == 1 {
			if l, ok := args[0].(*List); ok {
				return &Set{Items: l.Items}, nil
			}
		}
	case "datetime.date", "datetime.time", "datetime.datetime", "datetime.timedelta",
		"datetime.timezone", "builtins.complex", "__builtin__.complex":
		return &Object{Module: g.module, Name: g.name, Args: args}, nil
	default:
		// Pyrolite builds an unknown class only without arguments (a ClassDict); Spark then
		// fails or turns it into NULL. Weir refuses it outright.
		return nil, pickleError("unsupported Python class %s.%s (only builtin types, datetime and decimal can be returned)", g.module, g.name)
	}
	return nil, pickleError("unexpected arguments for %s.%s: %d of them", g.module, g.name, len(args))
}

// latin1Bytes encodes a str of code points U+0000..U+00FF as bytes (Python 2-protocol bytes).
func latin1Bytes(s string) (any, error) {
	out := make(Bytes, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			return nil, pickleError("bytes from a string with code point U+%04X", r)
		}
		out = append(out, byte(r))
	}
	return out, nil
}

// validDecimal reports whether s is a finite decimal number in Python's Decimal syntax (Java's
// BigDecimal rejects NaN and Infinity).
func validDecimal(s string) bool {
	_, _, ok := parseDecimal(s)
	return ok
}

// rawUnicodeEscape decodes Python's raw-unicode-escape (the UNICODE opcode's payload).
func rawUnicodeEscape(b []byte) (string, error) {
	out := make([]rune, 0, len(b))
	for i := 0; i < len(b); {
		if b[i] == '\\' && i+1 < len(b) && (b[i+1] == 'u' || b[i+1] == 'U') {
			n := 4
			if b[i+1] == 'U' {
				n = 8
			}
			if i+2+n > len(b) {
				return "", pickleError("truncated \\u escape in UNICODE")
			}
			v, err := strconv.ParseUint(string(b[i+2:i+2+n]), 16, 32)
			if err != nil || v > utf8.MaxRune {
				return "", pickleError("bad \\u escape %q in UNICODE", b[i:i+2+n])
			}
			out = append(out, rune(v))
			i += 2 + n
			continue
		}
		out = append(out, rune(b[i]))
		i++
	}
	return string(out), nil
}

func typeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case Bytes:
		return "bytes"
	case Tuple:
		return "tuple"
	case *List:
		return "list"
	case *Dict:
		return "dict"
	case *Set:
		return "set"
	case Decimal:
		return "decimal.Decimal"
	case *Object:
		return x.Module + "." + x.Name
	case global:
		return "global " + x.module + "." + x.name
	}
	return fmt.Sprintf("%T", v)
}
