package pickle

import (
	"fmt"
	"hash/fnv"
	"math/big"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sql/expr"
)

// maxToStringDepth bounds the nesting javaToString walks (Java itself overflows its stack on a
// deep or indirectly cyclic collection).
const maxToStringDepth = 1000

// javaToString is the String a string-typed UDF result becomes: UTF8String.fromString(obj.toString)
// of the Java object Pyrolite unpickled. Collections render like java.util's toString
// ("[1, 2]", "{a=1}"; a dict in Python's insertion order where a HashMap has its hash order);
// objects whose Java toString is Object.toString ("[Ljava.lang.Object;@1b6d3586" for a tuple,
// "[B@…" for bytes, a Calendar for a datetime) keep the class-name part with a content hash in place
// of the JVM's identity hash, which cannot be reproduced.
func javaToString(v any, budget *Budget) (string, error) {
	var b strings.Builder
	if err := writeJavaString(&b, v, 0, budget); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeJavaString(b *strings.Builder, v any, depth int, budget *Budget) error {
	if depth > maxToStringDepth {
		return pickleError("value nested more than %d levels deep", maxToStringDepth)
	}
	if err := budget.spend(1, 0); err != nil {
		return err
	}
	if b.Len() > budget.Bytes {
		// Each leaf adds at most one input-sized string, so the overshoot is bounded.
		return pickleError("the decoded value's string form is too large")
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		b.WriteString(x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case javaByte:
		b.WriteString(strconv.Itoa(int(x)))
	case *big.Int:
		b.WriteString(x.String())
	case float64:
		b.WriteString(javaDoubleString(x))
	case Decimal:
		u, sc, ok := parseDecimal(string(x))
		if !ok {
			b.WriteString(string(x))
		} else {
			b.WriteString(bigDecimalString(u, sc))
		}
	case *List:
		return writeJavaCollection(b, x.Items, x, depth, budget)
	case *Set:
		return writeJavaCollection(b, x.Items, x, depth, budget)
	case *Dict:
		b.WriteByte('{')
		for i := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := writeJavaElem(b, x.Keys[i], x, "(this Map)", depth, budget); err != nil {
				return err
			}
			b.WriteByte('=')
			if err := writeJavaElem(b, x.Values[i], x, "(this Map)", depth, budget); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case Bytes:
		h := fnv.New32a()
		h.Write(x)
		fmt.Fprintf(b, "[B@%x", h.Sum32())
	case Tuple:
		return writeIdentity(b, "[Ljava.lang.Object;", []any(x), depth, budget)
	case *Object:
		return writeIdentity(b, javaClassOf(x), []any(x.Args), depth, budget)
	default:
		return pickleError("cannot render %s as a string", typeName(v))
	}
	return nil
}

func writeJavaCollection(b *strings.Builder, items []any, self any, depth int, budget *Budget) error {
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := writeJavaElem(b, it, self, "(this Collection)", depth, budget); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

// writeJavaElem writes an element, or selfText when the collection contains itself directly.
func writeJavaElem(b *strings.Builder, v, self any, selfText string, depth int, budget *Budget) error {
	if v == self {
		b.WriteString(selfText)
		return nil
	}
	return writeJavaString(b, v, depth+1, budget)
}

// writeIdentity writes class@hash, the hash taken over the rendered contents.
func writeIdentity(b *strings.Builder, class string, items []any, depth int, budget *Budget) error {
	var inner strings.Builder
	if err := writeJavaCollection(&inner, items, nil, depth, budget); err != nil {
		return err
	}
	h := fnv.New32a()
	h.Write([]byte(class))
	h.Write([]byte(inner.String()))
	fmt.Fprintf(b, "%s@%x", class, h.Sum32())
	return nil
}

// javaClassOf is the Java class Pyrolite unpickles an allowed Python class into.
func javaClassOf(o *Object) string {
	switch o.Name {
	case "date", "datetime":
		return "java.util.GregorianCalendar"
	case "time":
		return "net.razorvine.pickle.objects.Time"
	case "timedelta":
		return "net.razorvine.pickle.objects.TimeDelta"
	case "complex":
		return "net.razorvine.pickle.objects.ComplexNumber"
	}
	return o.Module + "." + o.Name
}

// javaDoubleString is Java's Double.toString (Spark's rendering of a double).
func javaDoubleString(v float64) string { return expr.JavaDouble(v, 64) }
