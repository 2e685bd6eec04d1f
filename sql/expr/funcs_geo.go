package expr

import (
	"encoding/binary"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The spatial functions over GEOMETRY and GEOGRAPHY (Spark 4.1's st_* over WKB): st_geomfromwkb,
// st_geogfromwkb, st_asbinary, st_srid, st_setsrid. Values are kept as Spark keeps them: the
// WKB little-endian as Spark's writer makes it (wkb.go) and the SRID beside it.

func init() {
	registerScalar(1, 2, bindGeomFromWKB, "st_geomfromwkb")
	registerScalar(1, 1, bindGeomFromWKB, "st_geogfromwkb")
	registerScalar(1, 2, bindAsBinary, "st_asbinary")
	registerScalar(1, 1, bindSRID, "st_srid")
	registerScalar(2, 2, bindSetSRID, "st_setsrid")
}

// isSpatial reports whether t is GEOMETRY or GEOGRAPHY (of any SRID).
func isSpatial(t sqltypes.DataType) bool {
	return t.Kind == sqltypes.Geometry || t.Kind == sqltypes.Geography
}

// requireSpatial refuses an argument that is neither GEOGRAPHY nor GEOMETRY (nor NULL).
func requireSpatial(name string, args []Expr, i int) error {
	switch args[i].Type().Kind {
	case sqltypes.Geometry, sqltypes.Geography, sqltypes.Null:
		return nil
	}
	return unexpectedInputType(quoteSQL(callString(name, args)), i, `("GEOGRAPHY" or "GEOMETRY")`, args[i])
}

// sridType is the type of spatial kind k with an SRID argument: the SRID itself when the
// argument is an INT literal (refused at once if Spark does not support it), ANY otherwise (each
// value then checked as it comes).
func sridType(k sqltypes.Kind, arg Expr) (sqltypes.DataType, error) {
	lit, ok := arg.(*Literal)
	if !ok || lit.T.Kind != sqltypes.Integer || lit.Value == nil {
		return sqltypes.DataType{Kind: k, SRID: sqltypes.MixedSRID}, nil
	}
	srid := int32(toInt64(lit.Value))
	if !sqltypes.ValidSRID(k, srid) {
		return sqltypes.DataType{}, sqltypes.InvalidSRID(srid)
	}
	return sqltypes.DataType{Kind: k, SRID: srid}, nil
}

// bindGeomFromWKB is st_geomfromwkb(wkb[, srid = 0]) and st_geogfromwkb(wkb) (SRID 4326, with
// longitude/latitude bounds).
func bindGeomFromWKB(name string, args []Expr, opts Options) (Expr, error) {
	geography := name == "st_geogfromwkb"
	kind := sqltypes.Geometry
	if geography {
		kind = sqltypes.Geography
	} else if len(args) == 1 {
		args = append(args, &Literal{Value: int32(0), T: sqltypes.IntegerType})
	}
	wkb, err := coerceArg(name, args, 0, sqltypes.BinaryType, opts)
	if err != nil {
		return nil, err
	}
	in := []Expr{wkb}
	t := sqltypes.GeographyType(sqltypes.DefaultGeographySRID)
	if !geography {
		srid, err := coerceArg(name, args, 1, sqltypes.IntegerType, opts)
		if err != nil {
			return nil, err
		}
		if t, err = sridType(kind, args[1]); err != nil {
			return nil, err
		}
		in = append(in, srid)
	}
	return strict(name, in, t, func(_ *Context, a []any) (any, error) {
		srid := t.SRID
		if len(a) == 2 {
			srid = a[1].(int32)
			if !sqltypes.ValidSRID(kind, srid) {
				return nil, sqltypes.InvalidSRID(srid)
			}
		}
		out, err := transcodeWKB(a[0].([]byte), binary.LittleEndian, geography)
		if err != nil {
			return nil, err
		}
		return sqltypes.GeoValue{SRID: srid, WKB: out}, nil
	}), nil
}

// bindAsBinary is st_asbinary(geo[, endianness = 'NDR']): the WKB, little-endian (NDR) or
// big-endian (XDR).
func bindAsBinary(name string, args []Expr, opts Options) (Expr, error) {
	if len(args) == 1 {
		args = append(args, &Literal{Value: "NDR", T: sqltypes.StringType})
	}
	if err := requireSpatial(name, args, 0); err != nil {
		return nil, err
	}
	end, err := coerceArg(name, args, 1, sqltypes.StringType, opts)
	if err != nil {
		return nil, err
	}
	return strict(name, []Expr{args[0], end}, sqltypes.BinaryType, func(_ *Context, a []any) (any, error) {
		e := a[1].(string)
		switch strings.ToUpper(e) {
		case "NDR":
			return a[0].(sqltypes.GeoValue).WKB, nil
		case "XDR":
			return transcodeWKB(a[0].(sqltypes.GeoValue).WKB, binary.BigEndian, false)
		}
		return nil, sparkerr.Newf(sparkerr.SparkIllegalArgumentException, "ST_INVALID_ENDIANNESS_VALUE", "22023",
			"Endianness '%s' must be either 'NDR' (little-endian) or 'XDR' (big-endian).", e).WithParams("endianness", e)
	}), nil
}

// bindSRID is st_srid(geo).
func bindSRID(name string, args []Expr, _ Options) (Expr, error) {
	if err := requireSpatial(name, args, 0); err != nil {
		return nil, err
	}
	return strict(name, args, sqltypes.IntegerType, func(_ *Context, a []any) (any, error) {
		return a[0].(sqltypes.GeoValue).SRID, nil
	}), nil
}

// bindSetSRID is st_setsrid(geo, srid): the same shape under another SRID (a NULL geo is read as
// a GEOGRAPHY, as Spark does).
func bindSetSRID(name string, args []Expr, opts Options) (Expr, error) {
	if err := requireSpatial(name, args, 0); err != nil {
		return nil, err
	}
	kind := args[0].Type().Kind
	if kind == sqltypes.Null {
		kind = sqltypes.Geography
	}
	srid, err := coerceArg(name, args, 1, sqltypes.IntegerType, opts)
	if err != nil {
		return nil, err
	}
	t, err := sridType(kind, args[1])
	if err != nil {
		return nil, err
	}
	return strict(name, []Expr{args[0], srid}, t, func(_ *Context, a []any) (any, error) {
		s := a[1].(int32)
		if !sqltypes.ValidSRID(kind, s) {
			return nil, sqltypes.InvalidSRID(s)
		}
		return sqltypes.GeoValue{SRID: s, WKB: a[0].(sqltypes.GeoValue).WKB}, nil
	}), nil
}
