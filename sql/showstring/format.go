package showstring

import (
	"fmt"
	"strings"
	"unicode/utf16"
)

// minColWidth is Spark's minimum column width.
const minColWidth = 3

// Format renders names and rows like Spark 4's Dataset.showString(numRows, truncate,
// vertical) over already-stringified cells. rows may hold more than numRows rows: only the first
// numRows are shown, followed by "only showing top numRows rows" (callers pass numRows+1 rows to
// learn whether there are more). A negative numRows counts as 0, as in Spark.
//
// As Spark's getRows does, every name and cell has its control characters escaped (a newline
// shows as \n); cells (not names) longer than truncate > 0 characters are cut, ending in "..."
// when truncate >= 4. With truncate > 0 cells are right-aligned, otherwise left-aligned. Widths
// count characters as Java does (UTF-16 units), East Asian full-width characters twice.
func Format(names []string, rows [][]string, numRows, truncate int, vertical bool) string {
	numRows = max(numRows, 0)
	more := len(rows) > numRows
	if more {
		rows = rows[:numRows]
	}
	cells := make([][]string, 0, len(rows)+1)
	header := make([]string, len(names))
	for i, n := range names {
		header[i] = escapeMeta(n)
	}
	cells = append(cells, header)
	for _, r := range rows {
		row := make([]string, len(r))
		for i, c := range r {
			row[i] = truncateCell(escapeMeta(c), truncate)
		}
		cells = append(cells, row)
	}
	var b strings.Builder
	if vertical {
		writeVertical(&b, cells)
	} else {
		writeTable(&b, cells, truncate > 0)
	}
	switch {
	case vertical && len(rows) == 0:
		b.WriteString("(0 rows)\n")
	case more:
		unit := "rows"
		if numRows == 1 {
			unit = "row"
		}
		fmt.Fprintf(&b, "only showing top %d %s\n", numRows, unit)
	}
	return b.String()
}

// metaEscapes is Spark's SparkSchemaUtils.escapeMetaCharacters table.
var metaEscapes = strings.NewReplacer(
	"\n", `\n`, "\r", `\r`, "\t", `\t`, "\f", `\f`, "\b", `\b`, "\v", `\v`, "\a", `\a`)

func escapeMeta(s string) string {
	if !strings.ContainsAny(s, "\n\r\t\f\b\v\a") {
		return s
	}
	return metaEscapes.Replace(s)
}

// javaLen is Java's String.length: the number of UTF-16 units.
func javaLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// javaPrefix is Java's s.substring(0, n) (n in UTF-16 units; a split surrogate pair becomes
// U+FFFD as it would when printed).
func javaPrefix(s string, n int) string {
	u := utf16.Encode([]rune(s))
	return string(utf16.Decode(u[:n]))
}

// truncateCell cuts s to truncate characters, ending in "..." when there is room for it.
func truncateCell(s string, truncate int) string {
	if truncate <= 0 || javaLen(s) <= truncate {
		return s
	}
	if truncate < 4 {
		return javaPrefix(s, truncate)
	}
	return javaPrefix(s, truncate-3) + "..."
}

// halfWidth is Spark's Utils.stringHalfWidth: the string's length plus one for every
// full-width character.
func halfWidth(s string) int {
	n := javaLen(s)
	for _, r := range s {
		if fullWidth(r) {
			n++
		}
	}
	return n
}

// fullWidth reports whether r is in Spark's fullWidthRegex ranges.
func fullWidth(r rune) bool {
	switch {
	case r >= 0x1100 && r <= 0x115F,
		r >= 0x2E80 && r <= 0xA4CF,
		r >= 0xAC00 && r <= 0xD7A3,
		r >= 0xF900 && r <= 0xFAFF,
		r >= 0xFE10 && r <= 0xFE19,
		r >= 0xFE30 && r <= 0xFE6F,
		r >= 0xFF00 && r <= 0xFF60,
		r >= 0xFFE0 && r <= 0xFFE6:
		return true
	}
	return false
}

// pad fills s with spaces to width half-widths, on the left when left is set.
func pad(s string, width int, left bool) string {
	n := width - halfWidth(s)
	if n <= 0 {
		return s
	}
	if left {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

// writeTable writes the boxed layout; cells[0] is the header.
func writeTable(b *strings.Builder, cells [][]string, rightAlign bool) {
	widths := make([]int, len(cells[0]))
	for i := range widths {
		widths[i] = minColWidth
	}
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], halfWidth(c))
		}
	}
	var sep strings.Builder
	sep.WriteString("+")
	for _, w := range widths {
		sep.WriteString(strings.Repeat("-", w) + "+")
	}
	sep.WriteString("\n")
	line := func(row []string) {
		b.WriteString("|")
		for i, c := range row {
			b.WriteString(pad(c, widths[i], rightAlign) + "|")
		}
		b.WriteString("\n")
	}
	b.WriteString(sep.String())
	line(cells[0])
	b.WriteString(sep.String())
	for _, row := range cells[1:] {
		line(row)
	}
	b.WriteString(sep.String())
}

// writeVertical writes one "-RECORD i" block per row; cells[0] is the header.
func writeVertical(b *strings.Builder, cells [][]string) {
	header, rows := cells[0], cells[1:]
	nameW, dataW := minColWidth, minColWidth
	for _, n := range header {
		nameW = max(nameW, halfWidth(n))
	}
	for _, row := range rows {
		for _, c := range row {
			dataW = max(dataW, halfWidth(c))
		}
	}
	for i, row := range rows {
		head := fmt.Sprintf("-RECORD %d", i)
		b.WriteString(head + strings.Repeat("-", max(0, nameW+dataW+5-len(head))) + "\n")
		for j, c := range row {
			b.WriteString(" " + pad(header[j], nameW, false) + " | " + pad(c, dataW, false) + " \n")
		}
	}
}
