package engine

import (
	"fmt"
	"strings"
)

//go:generate go test -run TestConfigurationDoc -update .

// kindNames are the ConfKind names docs/configuration.md shows.
var kindNames = [...]string{ConfString: "string", ConfBool: "boolean", ConfInt: "int", ConfLong: "long",
	ConfBytes: "bytes", ConfTime: "duration", ConfEnum: "enum", ConfTimeZone: "time zone"}

// ConfigurationDoc renders the registry as docs/configuration.md: every key Weir honours or
// reports, with its type, default and doc line, in registration order.
func ConfigurationDoc() string {
	var b strings.Builder
	b.WriteString("# Configuration\n\n")
	b.WriteString("<!-- Generated from engine/conf_keys.go by `go generate ./engine`; do not edit. -->\n\n")
	b.WriteString("Every key Weir reads or reports (`spark.conf.getAll` lists them all). Keys not listed here can be\n")
	b.WriteString("set and read back but change nothing. Static keys cannot be set at run time.\n\n")
	b.WriteString("| Key | Type | Default | Description |\n|---|---|---|---|\n")
	for _, e := range confEntries {
		kind := kindNames[e.Kind]
		if e.Kind == ConfEnum {
			kind += " (" + strings.Join(e.Values, ", ") + ")"
		}
		if e.Static {
			kind += ", static"
		}
		def := "`" + e.Default + "`"
		switch {
		case e.DocDefault != "":
			def = e.DocDefault
		case e.NoDefault:
			def = "(none)"
		case e.Default == "":
			def = "(empty)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", e.Key, kind, def, strings.ReplaceAll(e.Doc, "|", `\|`))
	}
	return b.String()
}
