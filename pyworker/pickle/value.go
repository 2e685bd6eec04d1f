package pickle

// Decoded Python objects, as Pyrolite's Unpickler gives them to the JVM:
//
//	None → nil                          bool → bool
//	int  → int64 (Java Integer or Long) or *big.Int (BigInteger) when it does not fit in 64 bits
//	float → float64                     str → string
//	bytes, bytearray → Bytes (byte[])   tuple → Tuple (Object[])
//	list → *List (ArrayList)            dict → *Dict (HashMap)
//	set, frozenset → *Set (HashSet)     decimal.Decimal → Decimal (BigDecimal)
//	datetime.date/time/datetime/timedelta and other allowed classes → *Object
type (
	// Bytes is a Python bytes or bytearray (a Java byte[]).
	Bytes []byte
	// Tuple is a Python tuple (a Java Object[]).
	Tuple []any
	// Decimal is a decimal.Decimal, kept as the string it was pickled with.
	Decimal string
)

// List is a Python list. It is a pointer because the memo may share it before it is filled.
type List struct{ Items []any }

// Dict is a Python dict, in insertion order.
type Dict struct{ Keys, Values []any }

// Set is a Python set or frozenset.
type Set struct{ Items []any }

// Object is an instance of an allowed class other than the above (datetime objects, complex),
// with the arguments it was reduced with.
type Object struct {
	Module, Name string
	Args         Tuple
}

// global is a class or function reference on the stack (GLOBAL / STACK_GLOBAL).
type global struct{ module, name string }

// mark is the stack marker pushed by MARK.
type mark struct{}
