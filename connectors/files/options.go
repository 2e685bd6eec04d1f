package files

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/parser"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// File formats Weir reads and writes.
var fileFormats = []string{"parquet", "json", "csv", "text"}

// IsFileFormat reports whether format is a file format ("parquet", "json", "csv", "text").
func IsFileFormat(format string) bool {
	for _, f := range fileFormats {
		if strings.EqualFold(f, format) {
			return true
		}
	}
	return false
}

// textSchema is the text format's fixed schema.
var textSchema = sqltypes.Schema{{Name: "value", Type: sqltypes.DataType{Kind: sqltypes.String}, Nullable: true}}

// ParseUserSchema parses a user schema as the client sends it: JSON (StructType.json(), what
// PySpark sends for a StructType) or DDL ("a INT, b STRING").
func ParseUserSchema(s string) (sqltypes.Schema, error) {
	trimmed := strings.TrimSpace(s)
	if !strings.HasPrefix(trimmed, "{") {
		return parser.ParseTableSchema(s)
	}
	t, err := jsonDataType(json.RawMessage(trimmed))
	if err != nil {
		return nil, err
	}
	if t.Kind != sqltypes.Struct {
		return sqltypes.Schema{{Name: "value", Type: t, Nullable: true}}, nil
	}
	return sqltypes.Schema(t.Fields), nil
}

// jsonDataType decodes Spark's JSON form of a data type.
func jsonDataType(raw json.RawMessage) (sqltypes.DataType, error) {
	bad := func(err error) (sqltypes.DataType, error) {
		return sqltypes.DataType{}, sparkerr.IllegalArgument("Failed to parse a data type from JSON: %s", string(raw)).Wrap(err)
	}
	var name string
	if json.Unmarshal(raw, &name) == nil {
		t, err := parser.ParseDataType(name)
		if err != nil {
			return bad(err)
		}
		return t, nil
	}
	var obj struct {
		Type              string            `json:"type"`
		Fields            []json.RawMessage `json:"fields"`
		ElementType       json.RawMessage   `json:"elementType"`
		ContainsNull      bool              `json:"containsNull"`
		KeyType           json.RawMessage   `json:"keyType"`
		ValueType         json.RawMessage   `json:"valueType"`
		ValueContainsNull bool              `json:"valueContainsNull"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return bad(err)
	}
	switch obj.Type {
	case "struct":
		fields := make([]sqltypes.Field, 0, len(obj.Fields))
		for _, fr := range obj.Fields {
			var f struct {
				Name     string          `json:"name"`
				Type     json.RawMessage `json:"type"`
				Nullable *bool           `json:"nullable"`
			}
			if err := json.Unmarshal(fr, &f); err != nil {
				return bad(err)
			}
			ft, err := jsonDataType(f.Type)
			if err != nil {
				return sqltypes.DataType{}, err
			}
			fields = append(fields, sqltypes.Field{Name: f.Name, Type: ft, Nullable: f.Nullable == nil || *f.Nullable})
		}
		return sqltypes.StructType(fields...), nil
	case "array":
		et, err := jsonDataType(obj.ElementType)
		if err != nil {
			return sqltypes.DataType{}, err
		}
		return sqltypes.ArrayType(et, obj.ContainsNull), nil
	case "map":
		kt, err := jsonDataType(obj.KeyType)
		if err != nil {
			return sqltypes.DataType{}, err
		}
		vt, err := jsonDataType(obj.ValueType)
		if err != nil {
			return sqltypes.DataType{}, err
		}
		return sqltypes.MapType(kt, vt, obj.ValueContainsNull), nil
	}
	return bad(nil)
}

// fileOptions are a file source's options (keys lower-case).
type fileOptions struct {
	format      string
	path        string
	header      bool
	sep         string
	maxFiles    int // 0: no limit
	latestFirst bool
}

// parseFileOptions reads the options shared by file reads.
func parseFileOptions(format string, opts map[string]string) (fileOptions, error) {
	o := fileOptions{format: strings.ToLower(format), path: opts["path"], sep: ","}
	if v, ok := opts["header"]; ok {
		b, err := parseBoolOption("header", v)
		if err != nil {
			return o, err
		}
		o.header = b
	}
	if v, ok := opts["sep"]; ok {
		o.sep = v
	} else if v, ok := opts["delimiter"]; ok {
		o.sep = v
	}
	if o.sep == `\t` {
		o.sep = "\t"
	}
	if len([]rune(o.sep)) != 1 {
		return o, sparkerr.IllegalArgument("Delimiter cannot be more than one character: %s", o.sep)
	}
	if v, ok := opts["maxfilespertrigger"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			return o, sparkerr.IllegalArgument("Invalid value '%s' for option 'maxFilesPerTrigger', must be a positive integer", v)
		}
		o.maxFiles = n
	}
	if v, ok := opts["latestfirst"]; ok {
		b, err := parseBoolOption("latestFirst", v)
		if err != nil {
			return o, err
		}
		o.latestFirst = b
	}
	return o, nil
}

func parseBoolOption(name, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, sparkerr.IllegalArgument("%s flag can be true or false", name)
}

// streamFileSchema is a stream file source's schema: text's fixed one, else the user's
// (required, as Spark requires it for streaming file sources).
func streamFileSchema(format string, opts map[string]string, userSchema string) (sqltypes.Schema, fileOptions, error) {
	o, err := parseFileOptions(format, opts)
	if err != nil {
		return nil, o, err
	}
	if o.path == "" {
		return nil, o, sparkerr.IllegalArgument("'path' is not specified")
	}
	if o.format == "text" {
		if strings.TrimSpace(userSchema) != "" {
			s, err := ParseUserSchema(userSchema)
			if err != nil {
				return nil, o, err
			}
			if len(s) != 1 || s[0].Type.Kind != sqltypes.String {
				return nil, o, sparkerr.Analysis("_LEGACY_ERROR_TEMP_1143", "",
					"Text data source supports only a single column, and you have %d columns.", len(s))
			}
			return s, o, nil
		}
		return textSchema, o, nil
	}
	if strings.TrimSpace(userSchema) == "" {
		return nil, o, sparkerr.New(sparkerr.IllegalArgumentException, "", "",
			"Schema must be specified when creating a streaming source DataFrame. If some files already exist in "+
				"the directory, then depending on the file format you may be able to create a static DataFrame on "+
				"that directory with 'spark.read.load(directory)' and infer schema from it.")
	}
	s, err := ParseUserSchema(userSchema)
	if err != nil {
		return nil, o, err
	}
	return s, o, nil
}
