package sqltypes

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/weirhq/weir/sparkerr"
)

// MixedSRID is the SRID of GEOMETRY(ANY) and GEOGRAPHY(ANY): values of any SRID, each carrying
// its own.
const MixedSRID int32 = -1

// DefaultGeographySRID is the SRID of GEOGRAPHY values made without one (OGC:CRS84).
const DefaultGeographySRID int32 = 4326

// GeoValue is the Go value of a GEOMETRY or GEOGRAPHY: its SRID and its WKB, little-endian as
// Spark keeps it.
type GeoValue struct {
	SRID int32
	WKB  []byte
}

// GeometryType returns geometry(srid) (MixedSRID: geometry(any)).
func GeometryType(srid int32) DataType { return DataType{Kind: Geometry, SRID: srid} }

// GeographyType returns geography(srid) (MixedSRID: geography(any)).
func GeographyType(srid int32) DataType { return DataType{Kind: Geography, SRID: srid} }

// spatialCRS is the coordinate reference system of each supported SRID, as Spark's JSON form of a
// spatial type names it (geometry(SRID:0), geography(OGC:CRS84, SPHERICAL)).
var spatialCRS = map[int32]string{0: "SRID:0", 3857: "EPSG:3857", 4326: "OGC:CRS84"}

// geoJSONName is a spatial type's name in Spark's JSON form.
func geoJSONName(t DataType) string {
	crs := "SRID:ANY"
	if t.SRID != MixedSRID {
		crs = spatialCRS[t.SRID]
	}
	if t.Kind == Geography {
		return "geography(" + crs + ", SPHERICAL)"
	}
	return "geometry(" + crs + ")"
}

// geoFromJSONName reads a spatial type's JSON name; ok is false for a name of another type.
func geoFromJSONName(name string) (DataType, bool, error) {
	kind := Geometry
	body, ok := strings.CutPrefix(name, "geometry(")
	if !ok {
		kind = Geography
		if body, ok = strings.CutPrefix(name, "geography("); !ok {
			return DataType{}, false, nil
		}
		if body, ok = strings.CutSuffix(body, ", SPHERICAL)"); !ok {
			return DataType{}, true, sparkerr.Unsupported("data type %q is not supported", name)
		}
	} else if body, ok = strings.CutSuffix(body, ")"); !ok {
		return DataType{}, true, sparkerr.Unsupported("data type %q is not supported", name)
	}
	if strings.EqualFold(body, "SRID:ANY") {
		return DataType{Kind: kind, SRID: MixedSRID}, true, nil
	}
	for srid, crs := range spatialCRS {
		if crs == body && ValidSRID(kind, srid) {
			return DataType{Kind: kind, SRID: srid}, true, nil
		}
	}
	return DataType{}, true, sparkerr.New(sparkerr.SparkIllegalArgumentException, "ST_INVALID_CRS_VALUE", "22023",
		"Invalid or unsupported CRS (coordinate reference system) value: '"+body+"'.").WithParams("crs", body)
}

// spatialSystems are the spatial reference systems Spark 4.2 supports: SRID → whether it is
// geographic (only geographic ones may be a GEOGRAPHY's), as Spark's SpatialReferenceSystemCache.
var spatialSystems = map[int32]bool{0: false, 3857: false, 4326: true}

// ValidSRID reports whether srid may be the SRID of a value of kind (Geometry or Geography):
// Spark's GeometryType(srid) / GeographyType(srid) accept it.
func ValidSRID(kind Kind, srid int32) bool {
	geographic, ok := spatialSystems[srid]
	return ok && (kind == Geometry || geographic)
}

// geoName is a spatial kind's name: "geometry" or "geography".
func geoName(k Kind) string {
	if k == Geography {
		return "geography"
	}
	return "geometry"
}

// InvalidSRID is Spark's ST_INVALID_SRID_VALUE for an SRID ValidSRID refuses.
func InvalidSRID(srid int32) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkIllegalArgumentException, "ST_INVALID_SRID_VALUE", "22023",
		"Invalid or unsupported SRID (spatial reference identifier) value: %d.", srid).
		WithParams("srid", strconv.Itoa(int(srid)))
}

func geoString(t DataType) string {
	name := geoName(t.Kind)
	if t.SRID == MixedSRID {
		return name + "(any)"
	}
	return name + "(" + strconv.Itoa(int(t.SRID)) + ")"
}

// geoArrow is a spatial type's Arrow type, as Spark Connect sends it and PySpark reads it: a
// struct of a non-null int32 srid and a non-null binary wkb, the wkb field tagged
// geometry|geography=true and srid=<the type's SRID>.
func geoArrow(t DataType) arrow.DataType {
	return arrow.StructOf(
		arrow.Field{Name: "srid", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "wkb", Type: arrow.BinaryTypes.Binary,
			Metadata: arrow.NewMetadata([]string{geoName(t.Kind), "srid"}, []string{"true", strconv.Itoa(int(t.SRID))})},
	)
}

// geoFromArrow reads a spatial Arrow struct back as its type (PySpark's is_geometry /
// is_geography); ok is false for any other struct.
func geoFromArrow(t *arrow.StructType) (DataType, bool) {
	if t.NumFields() != 2 {
		return DataType{}, false
	}
	s, ok1 := t.FieldByName("srid")
	w, ok2 := t.FieldByName("wkb")
	if !ok1 || !ok2 || !arrow.TypeEqual(s.Type, arrow.PrimitiveTypes.Int32) || !arrow.TypeEqual(w.Type, arrow.BinaryTypes.Binary) {
		return DataType{}, false
	}
	srid := MixedSRID
	if i := w.Metadata.FindKey("srid"); i >= 0 {
		n, err := strconv.Atoi(w.Metadata.Values()[i])
		if err != nil {
			return DataType{}, false
		}
		srid = int32(n)
	}
	for _, k := range []Kind{Geometry, Geography} {
		if i := w.Metadata.FindKey(geoName(k)); i >= 0 && w.Metadata.Values()[i] == "true" {
			return DataType{Kind: k, SRID: srid}, true
		}
	}
	return DataType{}, false
}
