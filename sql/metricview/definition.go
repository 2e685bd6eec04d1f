package metricview

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Version is the one YAML version Spark 4.2 reads.
const Version = "0.1"

// Field is a dimension or a measure: its column name and its expression over the source.
type Field struct {
	Name string
	Expr plan.Expr
}

// View is a parsed metric view.
type View struct {
	// Source is what the view reads: a table name or a query.
	Source plan.Relation
	// SourceText is the source as written; SourceIsQuery tells a query from a table name.
	SourceText    string
	SourceIsQuery bool
	// Filter is the source rows' filter, nil if none, as written in FilterText.
	Filter     plan.Expr
	FilterText string
	Dimensions []Field
	Measures   []Field
	// Schema is the view's columns as the catalog keeps them (dimensions, then measures with
	// their result types); empty until the view is created.
	Schema sqltypes.Schema
}

// Rename gives the dimensions and measures, in order, the names a CREATE VIEW's column list
// gave them.
func (v *View) Rename(names []string) {
	for i, n := range names {
		if i < len(v.Dimensions) {
			v.Dimensions[i].Name = n
		} else if j := i - len(v.Dimensions); j < len(v.Measures) {
			v.Measures[j].Name = n
		}
	}
}

// yamlField and yamlView are the YAML document's shape (Spark's MetricViewV01).
type yamlField struct {
	Name string `yaml:"name"`
	Expr string `yaml:"expr"`
}

type yamlView struct {
	Version    *string     `yaml:"version"`
	Source     *string     `yaml:"source"`
	Filter     *string     `yaml:"filter"`
	Dimensions []yamlField `yaml:"dimensions"`
	Measures   []yamlField `yaml:"measures"`
}

// invalid is Spark's INVALID_METRIC_VIEW_YAML.
func invalid(format string, args ...any) *sparkerr.Error {
	msg := fmt.Sprintf(format, args...)
	return sparkerr.Analysis("INVALID_METRIC_VIEW_YAML", "42K0L", "Failed to parse metric view YAML: %s", msg).
		WithParams("message", msg)
}

// Parse reads a metric view's YAML text.
func Parse(text string) (*View, error) {
	dec := yaml.NewDecoder(strings.NewReader(text))
	dec.KnownFields(true)
	var y yamlView
	if err := dec.Decode(&y); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, invalid("Failed to parse YAML: empty document")
		}
		return nil, invalid("Failed to parse YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	switch {
	case y.Version == nil:
		return nil, invalid("Failed to parse YAML: Missing required creator property 'version' (index 0)")
	case y.Source == nil:
		return nil, invalid("Failed to parse YAML: Missing required creator property 'source' (index 1)")
	case *y.Version != Version:
		return nil, invalid("Invalid YAML version: %s", *y.Version)
	}
	v := &View{SourceText: strings.TrimSpace(*y.Source)}
	if name, err := parser.ParseMultipartIdentifier(v.SourceText); err == nil {
		v.Source = &plan.NamedTable{Name: name}
	} else {
		v.SourceIsQuery = true
		v.Source = &plan.SQLQuery{Query: v.SourceText}
	}
	if y.Filter != nil {
		f, err := parser.ParseExpression(*y.Filter)
		if err != nil {
			return nil, err
		}
		v.Filter, v.FilterText = f, strings.TrimSpace(*y.Filter)
	}
	var err error
	if v.Dimensions, err = fields(y.Dimensions); err != nil {
		return nil, err
	}
	if v.Measures, err = fields(y.Measures); err != nil {
		return nil, err
	}
	return v, nil
}

func fields(ys []yamlField) ([]Field, error) {
	out := make([]Field, len(ys))
	for i, y := range ys {
		e, err := parser.ParseExpression(y.Expr)
		if err != nil {
			return nil, err
		}
		out[i] = Field{Name: y.Name, Expr: e}
	}
	return out, nil
}

// Measure returns the measure named name (case-insensitive), found false if none.
func (v *View) Measure(name string) (Field, bool) {
	for _, m := range v.Measures {
		if strings.EqualFold(m.Name, name) {
			return m, true
		}
	}
	return Field{}, false
}
