package pickle

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"strconv"
	"strings"
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

func mustParse(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// javaDoubleString is Java's Double.toString (JDK 19+): the shortest digits that round-trip, in plain
// notation ("123.0", "0.001") for 10^-3 ≤ |v| < 10^7 and computerized scientific notation
// ("1.0E7", "1.234E-5") otherwise.
func javaDoubleString(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if v < 0 {
		sign = "-"
		v = -v
	}
	// Shortest round-trip digits d1 d2 … dn and exponent e: v = 0.d1…dn × 10^e.
	s := strconv.FormatFloat(v, 'e', -1, 64) // "d.ddde±XX"
	if !strings.Contains(s, ".") {
		// JDK 19+ (Raffaello Giulietti's algorithm) picks the closest 2-digit decimal when the
		// shortest has one digit: 4.9E-324 rather than 5.0E-324.
		if s2 := strconv.FormatFloat(v, 'e', 1, 64); mustParse(s2) == v {
			s = s2
		}
	}
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	if t := strings.TrimRight(digits, "0"); t != "" {
		digits = t
	}
	if v >= 1e-3 && v < 1e7 {
		point := exp + 1 // digits before the decimal point
		var intPart, frac string
		switch {
		case point <= 0:
			intPart, frac = "0", strings.Repeat("0", -point)+digits
		case point >= len(digits):
			intPart, frac = digits+strings.Repeat("0", point-len(digits)), "0"
		default:
			intPart, frac = digits[:point], digits[point:]
		}
		return sign + intPart + "." + frac
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}
