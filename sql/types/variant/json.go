package variant

import (
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"strconv"
	"strings"
)

// ParseJSON builds a variant from the first JSON value in s (text after it is ignored, as
// Jackson's parser stops there). Numbers without fraction or exponent that fit a long are
// integers; other numbers written without an exponent that fit 38 digits (and scale 38) are
// decimals; the rest are doubles. A syntax error is returned as is (callers raise
// MALFORMED_RECORD_IN_PARSING); a duplicate key is VARIANT_DUPLICATE_KEY, a result past
// SizeLimit ErrSizeLimit.
func ParseJSON(s string) (value, metadata []byte, err error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var b Builder
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, nil, errors.New("variant: no JSON value")
		}
		return nil, nil, err
	}
	if err := b.buildJSON(dec, tok); err != nil {
		return nil, nil, err
	}
	return b.Result()
}

func (b *Builder) buildJSON(dec *json.Decoder, tok json.Token) error {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			start := b.Pos()
			var fields []FieldEntry
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				key := kt.(string)
				fields = append(fields, FieldEntry{Key: key, ID: b.AddKey(key), Offset: b.Pos() - start})
				vt, err := dec.Token()
				if err != nil {
					return err
				}
				if err := b.buildJSON(dec, vt); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			b.FinishObject(start, fields)
		case '[':
			start := b.Pos()
			var offs []int
			for dec.More() {
				offs = append(offs, b.Pos()-start)
				vt, err := dec.Token()
				if err != nil {
					return err
				}
				if err := b.buildJSON(dec, vt); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			b.FinishArray(start, offs)
		default:
			return errors.New("variant: unexpected " + t.String())
		}
	case string:
		b.AppendString(t)
	case json.Number:
		b.appendNumber(string(t))
	case bool:
		b.AppendBool(t)
	case nil:
		b.AppendNull()
	}
	return b.err
}

// appendNumber writes a JSON number with Spark's VariantBuilder rules.
func (b *Builder) appendNumber(s string) {
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			b.AppendLong(n)
			return
		}
	}
	if !strings.ContainsAny(s, "eE+") {
		if unscaled, scale, ok := parseDecimal(s); ok && scale <= 38 && DecimalPrecision(unscaled) <= 38 {
			b.AppendDecimal(unscaled, scale)
			return
		}
	}
	f, _ := strconv.ParseFloat(s, 64) // out of range is ±Inf, as Java's parseDouble
	b.AppendDouble(f)
}

// parseDecimal reads [-]digits[.digits] as BigDecimal does: the unscaled value and the
// number of fraction digits.
func parseDecimal(s string) (*big.Int, int, bool) {
	scale := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		scale = len(s) - i - 1
		s = s[:i] + s[i+1:]
	}
	n, ok := new(big.Int).SetString(s, 10)
	return n, scale, ok
}
