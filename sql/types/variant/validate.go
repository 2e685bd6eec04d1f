package variant

import "unicode/utf8"

// Validate checks that value and metadata are a well-formed variant: version-1 metadata whose
// offsets stay inside it, and a value whose every nested offset, field id and length stays
// inside its buffers. Readers of Value assume it passed.
func Validate(value, metadata []byte) error {
	if len(value) > SizeLimit || len(metadata) > SizeLimit {
		return ErrMalformed
	}
	nkeys, ok := validateMeta(metadata)
	if !ok {
		return ErrMalformed
	}
	end, ok := validateValue(value, 0, nkeys, 0)
	if !ok || end > len(value) {
		return ErrMalformed
	}
	return nil
}

func validateMeta(meta []byte) (int, bool) {
	if len(meta) < 1 || meta[0]&0x0f != version {
		return 0, false
	}
	offSize := int(meta[0]>>6) + 1
	if len(meta) < 1+offSize {
		return 0, false
	}
	n := readUint(meta, 1, offSize)
	offStart := 1 + offSize
	strStart := offStart + (n+1)*offSize
	if n > SizeLimit || strStart > len(meta) {
		return 0, false
	}
	prev := 0
	for i := 0; i <= n; i++ {
		o := readUint(meta, offStart+i*offSize, offSize)
		if o < prev || strStart+o > len(meta) {
			return 0, false
		}
		prev = o
	}
	return n, true
}

const maxDepth = 1000

// validateValue checks the value at pos and returns the position just past it.
func validateValue(b []byte, pos, nkeys, depth int) (int, bool) {
	if pos >= len(b) || depth > maxDepth {
		return 0, false
	}
	v := Value{Buf: b, Pos: pos}
	h := b[pos]
	switch h & 3 {
	case basicShortStr:
		end := pos + 1 + int(h>>2)
		return end, end <= len(b) && utf8.Valid(b[pos+1:min(end, len(b))])
	case basicObject, basicArray:
		info := int(h >> 2)
		large := info>>2&1 == 1
		if h&3 == basicObject {
			large = info>>4&1 == 1
		}
		sizeBytes := 1
		if large {
			sizeBytes = 4
		}
		if pos+1+sizeBytes > len(b) {
			return 0, false
		}
		c := v.container()
		if c.size > len(b) || c.dataStart > len(b) {
			return 0, false
		}
		dataEnd := readUint(b, c.offStart+c.size*c.offsetSize, c.offsetSize)
		end := c.dataStart + dataEnd
		if end > len(b) {
			return 0, false
		}
		for i := 0; i < c.size; i++ {
			if h&3 == basicObject && readUint(b, c.idStart+i*c.idSize, c.idSize) >= nkeys {
				return 0, false
			}
			off := readUint(b, c.offStart+i*c.offsetSize, c.offsetSize)
			if off >= dataEnd {
				return 0, false
			}
			e, ok := validateValue(b[:end], c.dataStart+off, nkeys, depth+1)
			if !ok {
				return 0, false
			}
			_ = e
		}
		return end, true
	}
	switch h >> 2 {
	case primBinary, primLongStr:
		if pos+5 > len(b) {
			return 0, false
		}
		end := pos + 5 + readUint(b, pos+1, 4)
		if end > len(b) {
			return 0, false
		}
		if h>>2 == primLongStr && !utf8.Valid(b[pos+5:end]) {
			return 0, false
		}
		return end, true
	case primNull, primTrue, primFalse, primInt1, primInt2, primInt4, primInt8, primDouble,
		primDecimal4, primDecimal8, primDecimal16, primDate, primTimestamp, primTimestampNTZ,
		primFloat, primTime, primTimestampNs, primTimestampNTZNs, primUUID:
		end := pos + v.size()
		return end, end <= len(b)
	}
	return 0, false
}
