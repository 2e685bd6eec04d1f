package expr

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/weirhq/weir/sparkerr"
)

// WKB (OGC Well-Known Binary) as Spark 4.2 reads and writes it for GEOMETRY and GEOGRAPHY values:
// the reader's checks (Spark's WkbReader at validation level 1, geography mode adding longitude
// and latitude bounds) and its messages and byte positions, and the writer's output (the whole
// value, nested geometries included, in one byte order, bytes past the geometry dropped). One pass
// does both: transcodeWKB reads the input in its own byte orders and writes it in the wanted one.

// WKB geometry type codes (base types; +1000 Z, +2000 M, +3000 ZM).
const (
	wkbPoint = 1 + iota
	wkbLineString
	wkbPolygon
	wkbMultiPoint
	wkbMultiLineString
	wkbMultiPolygon
	wkbGeometryCollection
)

// wkbParseError is Spark's WKB_PARSE_ERROR at a byte position of the input.
func wkbParseError(msg string, pos int) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkIllegalArgumentException, "WKB_PARSE_ERROR", "22023",
		"Error parsing WKB: %s at position %d", msg, pos).WithParams("parseError", msg, "pos", strconv.Itoa(pos))
}

// byteOrder is binary.LittleEndian or binary.BigEndian, read and append.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

type wkbCodec struct {
	in        []byte
	pos       int
	order     binary.ByteOrder // of the geometry being read
	out       []byte
	outOrder  byteOrder
	geography bool
}

// transcodeWKB validates wkb as Spark does (geography: coordinates within [-180, 180] ×
// [-90, 90]) and returns it written in byte order out.
func transcodeWKB(wkb []byte, out byteOrder, geography bool) ([]byte, error) {
	if len(wkb) < 1 {
		return nil, wkbParseError("WKB data is empty or null", 0)
	}
	if len(wkb) < 5 {
		return nil, wkbParseError("Unexpected end of WKB buffer", 0)
	}
	c := &wkbCodec{in: wkb, outOrder: out, out: make([]byte, 0, len(wkb)), geography: geography}
	if _, err := c.geometry(false, 0); err != nil {
		return nil, err
	}
	return c.out, nil
}

func (c *wkbCodec) endianness() error {
	if c.pos >= len(c.in) {
		return wkbParseError("Unexpected end of WKB buffer", c.pos)
	}
	b := c.in[c.pos]
	c.pos++
	switch b {
	case 0:
		c.order = binary.BigEndian
	case 1:
		c.order = binary.LittleEndian
	default:
		return wkbParseError(fmt.Sprintf("Invalid byte order %d", int8(b)), c.pos-1)
	}
	if c.outOrder == binary.LittleEndian {
		c.out = append(c.out, 1)
	} else {
		c.out = append(c.out, 0)
	}
	return nil
}

func (c *wkbCodec) readInt() (int32, error) {
	if len(c.in)-c.pos < 4 {
		return 0, wkbParseError("Unexpected end of WKB buffer", c.pos)
	}
	v := int32(c.order.Uint32(c.in[c.pos:]))
	c.pos += 4
	return v, nil
}

func (c *wkbCodec) writeInt(v int32) { c.out = c.outOrder.AppendUint32(c.out, uint32(v)) }

// count reads an element count, refusing a negative one or one whose elements (each at least
// minSize bytes) cannot fit in the bytes left.
func (c *wkbCodec) count(what string, minSize int) (int, error) {
	at := c.pos
	n, err := c.readInt()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, wkbParseError(fmt.Sprintf("Invalid count for %s: %d", what, n), at)
	}
	if int(n) > (len(c.in)-c.pos)/minSize {
		return 0, wkbParseError("Invalid count for "+what+": exceeds remaining bytes", at)
	}
	c.writeInt(n)
	return int(n), nil
}

// wkbType splits a type code into its base type and dimension offset (0, 1000, 2000, 3000);
// ok is false for a code Spark does not read.
func wkbType(code int32) (base, dims int32, ok bool) {
	for _, off := range []int32{3000, 2000, 1000, 0} {
		if code >= off+wkbPoint && code <= off+wkbGeometryCollection {
			return code - off, off, true
		}
	}
	return code, 0, false
}

// geometry reads one geometry from its byte order on, checking a nested one's dimensions against
// its parent's; it returns the base type.
func (c *wkbCodec) geometry(nested bool, parentDims int32) (int32, error) {
	saved := c.order
	if err := c.endianness(); err != nil {
		return 0, err
	}
	at := c.pos
	code, err := c.readInt()
	if err != nil {
		return 0, err
	}
	base, dims, ok := wkbType(code)
	if !ok || (nested && dims != parentDims) {
		return 0, wkbParseError(fmt.Sprintf("Invalid or unsupported type %d", code), at)
	}
	c.writeInt(code)
	nd := 2
	if dims == 1000 || dims == 2000 {
		nd = 3
	} else if dims == 3000 {
		nd = 4
	}
	switch base {
	case wkbPoint:
		_, _, err = c.point(nd, true)
	case wkbLineString:
		err = c.lineString(nd)
	case wkbPolygon:
		err = c.polygon(nd)
	case wkbMultiPoint:
		err = c.collection("MultiPoint points", "Expected Point in MultiPoint", wkbPoint, dims)
	case wkbMultiLineString:
		err = c.collection("MultiLineString line strings", "Expected LineString in MultiLineString", wkbLineString, dims)
	case wkbMultiPolygon:
		err = c.collection("MultiPolygon polygons", "Expected Polygon in MultiPolygon", wkbPolygon, dims)
	case wkbGeometryCollection:
		err = c.collection("GeometryCollection geometries", "", 0, dims)
	}
	if nested {
		c.order = saved
	}
	return base, err
}

// point reads nd coordinates and returns the first two; a point of its own may be empty (NaN
// coordinates), a vertex of a line or ring may not.
func (c *wkbCodec) point(nd int, allowEmpty bool) (x, y float64, err error) {
	at := c.pos
	empty := false
	var xy [2]float64
	for i := 0; i < nd; i++ {
		if len(c.in)-c.pos < 8 {
			return 0, 0, wkbParseError("Unexpected end of WKB buffer", c.pos)
		}
		bits := c.order.Uint64(c.in[c.pos:])
		c.pos += 8
		v := math.Float64frombits(bits)
		if math.IsInf(v, 0) || (math.IsNaN(v) && !allowEmpty) {
			return 0, 0, wkbParseError("Invalid coordinate value found", c.pos-8)
		}
		empty = empty || math.IsNaN(v)
		if i < 2 {
			xy[i] = v
		}
		c.out = c.outOrder.AppendUint64(c.out, bits)
	}
	if c.geography && !empty && (xy[0] < -180 || xy[0] > 180 || xy[1] < -90 || xy[1] > 90) {
		return 0, 0, wkbParseError("Invalid coordinate value found", at)
	}
	return xy[0], xy[1], nil
}

func (c *wkbCodec) lineString(nd int) error {
	at := c.pos
	n, err := c.count("LineString points", nd*8)
	if err != nil {
		return err
	}
	if n == 1 {
		return wkbParseError("Too few points in linestring", at)
	}
	for i := 0; i < n; i++ {
		if _, _, err := c.point(nd, false); err != nil {
			return err
		}
	}
	return nil
}

func (c *wkbCodec) polygon(nd int) error {
	rings, err := c.count("polygon rings", 4)
	if err != nil {
		return err
	}
	for r := 0; r < rings; r++ {
		at := c.pos
		n, err := c.count("ring points", nd*8)
		if err != nil {
			return err
		}
		var x0, y0, x, y float64
		for i := 0; i < n; i++ {
			if x, y, err = c.point(nd, false); err != nil {
				return err
			}
			if i == 0 {
				x0, y0 = x, y
			}
		}
		if n < 4 {
			return wkbParseError("Too few points in ring", at)
		}
		if x != x0 || y != y0 {
			return wkbParseError("Ring is not closed", at)
		}
	}
	return nil
}

// collection reads a multi-geometry or a geometry collection: nested geometries of the parent's
// dimensions, each of base type want (0: any).
func (c *wkbCodec) collection(what, wrong string, want, dims int32) error {
	n, err := c.count(what, 5)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		base, err := c.geometry(true, dims)
		if err != nil {
			return err
		}
		if want != 0 && base != want {
			return wkbParseError(wrong, c.pos)
		}
	}
	return nil
}
