package showstring

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// FormatHTML renders names and rows like Spark's Dataset.htmlString(numRows, truncate), the
// table PySpark shows in notebooks (_repr_html_ with spark.sql.repl.eagerEval.enabled): cells
// escaped and truncated as Format's, HTML-escaped, in "<table border='1'>" with a header row,
// followed by "only showing top numRows rows" when rows holds more than numRows.
func FormatHTML(names []string, rows [][]string, numRows, truncate int) string {
	numRows = max(numRows, 0)
	more := len(rows) > numRows
	if more {
		rows = rows[:numRows]
	}
	var b strings.Builder
	b.WriteString("<table border='1'>\n")
	writeHTMLRow(&b, "th", names, func(s string) string { return escapeMeta(s) })
	for _, r := range rows {
		writeHTMLRow(&b, "td", r, func(s string) string { return truncateCell(escapeMeta(s), truncate) })
	}
	b.WriteString("</table>\n")
	if more {
		unit := "rows"
		if numRows == 1 {
			unit = "row"
		}
		fmt.Fprintf(&b, "only showing top %d %s\n", numRows, unit)
	}
	return b.String()
}

// writeHTMLRow writes one <tr> of cells (cell renders each before HTML escaping).
func writeHTMLRow(b *strings.Builder, tag string, cells []string, cell func(string) string) {
	b.WriteString("<tr>")
	for _, c := range cells {
		b.WriteString("<" + tag + ">" + escapeHTML4(cell(c)) + "</" + tag + ">")
	}
	b.WriteString("</tr>\n")
}

// escapeHTML4 escapes as Apache Commons Text's StringEscapeUtils.escapeHtml4, which Spark's
// htmlString uses: &, <, >, " and every character HTML 4.01 names (ISO-8859-1 and the extended
// set: é → &eacute;, € → &euro;) become named entities; ' and all else stay.
func escapeHTML4(s string) string {
	var b strings.Builder
	last := 0
	for i, r := range s {
		if name, ok := html4Entities[r]; ok {
			_, size := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[last:i])
			b.WriteString("&" + name + ";")
			last = i + size
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// html4Entities maps each character HTML 4.01 names to its name.
var html4Entities = func() map[rune]string {
	m := map[rune]string{'"': "quot", '&': "amp", '<': "lt", '>': "gt"}
	latin1 := strings.Fields(`nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr
		deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest
		Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml
		ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig
		agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml
		eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml`)
	for i, n := range latin1 {
		m[rune(160+i)] = n
	}
	upper := strings.Fields("Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho - Sigma Tau Upsilon Phi Chi Psi Omega")
	for i, n := range upper {
		if n != "-" {
			m[rune(913+i)] = n
		}
	}
	lower := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigmaf sigma tau upsilon phi chi psi omega")
	for i, n := range lower {
		m[rune(945+i)] = n
	}
	for _, e := range strings.Fields(`402:fnof 977:thetasym 978:upsih 982:piv 8226:bull 8230:hellip 8242:prime 8243:Prime
		8254:oline 8260:frasl 8472:weierp 8465:image 8476:real 8482:trade 8501:alefsym 8592:larr 8593:uarr
		8594:rarr 8595:darr 8596:harr 8629:crarr 8656:lArr 8657:uArr 8658:rArr 8659:dArr 8660:hArr
		8704:forall 8706:part 8707:exist 8709:empty 8711:nabla 8712:isin 8713:notin 8715:ni 8719:prod
		8721:sum 8722:minus 8727:lowast 8730:radic 8733:prop 8734:infin 8736:ang 8743:and 8744:or 8745:cap
		8746:cup 8747:int 8756:there4 8764:sim 8773:cong 8776:asymp 8800:ne 8801:equiv 8804:le 8805:ge
		8834:sub 8835:sup 8836:nsub 8838:sube 8839:supe 8853:oplus 8855:otimes 8869:perp 8901:sdot
		8968:lceil 8969:rceil 8970:lfloor 8971:rfloor 9001:lang 9002:rang 9674:loz 9824:spades 9827:clubs
		9829:hearts 9830:diams 338:OElig 339:oelig 352:Scaron 353:scaron 376:Yuml 710:circ 732:tilde
		8194:ensp 8195:emsp 8201:thinsp 8204:zwnj 8205:zwj 8206:lrm 8207:rlm 8211:ndash 8212:mdash
		8216:lsquo 8217:rsquo 8218:sbquo 8220:ldquo 8221:rdquo 8222:bdquo 8224:dagger 8225:Dagger
		8240:permil 8249:lsaquo 8250:rsaquo 8364:euro`) {
		code, name, _ := strings.Cut(e, ":")
		var r rune
		for _, d := range code {
			r = r*10 + d - '0'
		}
		m[r] = name
	}
	return m
}()
