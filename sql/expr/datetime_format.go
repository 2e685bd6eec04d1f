package expr

import (
	"strconv"
	"strings"
	"time"
)

// Java DateTimeFormatter patterns (the subset Spark users write): y M d H h m s S a E D Z X x z
// V and 'quoted' literals.

type patToken struct {
	letter byte
	n      int
	lit    string
}

func tokenizePattern(p string) []patToken {
	var out []patToken
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			j := i + 1
			var lit strings.Builder
			for j < len(p) {
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						lit.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				lit.WriteByte(p[j])
				j++
			}
			if i+1 < len(p) && p[i+1] == '\'' && lit.Len() == 0 {
				out = append(out, patToken{lit: "'"})
				i += 2
				continue
			}
			out = append(out, patToken{lit: lit.String()})
			i = j + 1
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			out = append(out, patToken{letter: c, n: j - i})
			i = j
		default:
			out = append(out, patToken{lit: string(c)})
			i++
		}
	}
	return out
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + pad(-n, width)
	}
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// formatJava renders t with a Java pattern.
func formatJava(t time.Time, pattern string) string {
	var b strings.Builder
	for _, tok := range tokenizePattern(pattern) {
		if tok.letter == 0 {
			b.WriteString(tok.lit)
			continue
		}
		n := tok.n
		switch tok.letter {
		case 'y', 'u', 'Y':
			if n == 2 {
				b.WriteString(pad(t.Year()%100, 2))
			} else {
				b.WriteString(pad(t.Year(), n))
			}
		case 'M', 'L':
			switch {
			case n >= 4:
				b.WriteString(t.Month().String())
			case n == 3:
				b.WriteString(t.Month().String()[:3])
			default:
				b.WriteString(pad(int(t.Month()), n))
			}
		case 'd':
			b.WriteString(pad(t.Day(), n))
		case 'D':
			b.WriteString(pad(t.YearDay(), n))
		case 'H':
			b.WriteString(pad(t.Hour(), n))
		case 'k':
			h := t.Hour()
			if h == 0 {
				h = 24
			}
			b.WriteString(pad(h, n))
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			b.WriteString(pad(h, n))
		case 'K':
			b.WriteString(pad(t.Hour()%12, n))
		case 'm':
			b.WriteString(pad(t.Minute(), n))
		case 's':
			b.WriteString(pad(t.Second(), n))
		case 'S':
			frac := pad(t.Nanosecond(), 9)
			if n <= 9 {
				b.WriteString(frac[:n])
			} else {
				b.WriteString(frac + strings.Repeat("0", n-9))
			}
		case 'a':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'E':
			if n >= 4 {
				b.WriteString(t.Weekday().String())
			} else {
				b.WriteString(t.Weekday().String()[:3])
			}
		case 'Q', 'q':
			b.WriteString(pad((int(t.Month())-1)/3+1, n))
		case 'Z':
			_, off := t.Zone()
			if n == 4 {
				b.WriteString("GMT" + offsetString(off, true, true))
			} else if n == 5 {
				b.WriteString(offsetString(off, true, false))
			} else {
				b.WriteString(offsetString(off, false, false))
			}
		case 'X', 'x':
			_, off := t.Zone()
			if off == 0 && tok.letter == 'X' {
				b.WriteString("Z")
			} else {
				b.WriteString(offsetString(off, n >= 3, false))
			}
		case 'z':
			name, _ := t.Zone()
			b.WriteString(name)
		case 'V':
			b.WriteString(t.Location().String())
		case 'G':
			b.WriteString("AD")
		default:
			b.WriteString(strings.Repeat(string(tok.letter), n))
		}
	}
	return b.String()
}

func offsetString(off int, colon, gmt bool) string {
	sign := "+"
	if off < 0 {
		sign = "-"
		off = -off
	}
	h, m := off/3600, off%3600/60
	if colon {
		return sign + pad(h, 2) + ":" + pad(m, 2)
	}
	return sign + pad(h, 2) + pad(m, 2)
}

// parseJava parses s with a Java pattern in loc; false when s does not match.
func parseJava(s, pattern string, loc *time.Location) (time.Time, bool) {
	year, month, day := 1970, 1, 1
	hour, minute, sec, nano := 0, 0, 0, 0
	pm, hasAmPm := false, false
	zone := loc
	i := 0
	toks := tokenizePattern(pattern)
	for ti, tok := range toks {
		if tok.letter == 0 {
			if !strings.HasPrefix(s[i:], tok.lit) {
				return time.Time{}, false
			}
			i += len(tok.lit)
			continue
		}
		// Adjacent numeric fields use fixed widths; a field followed by a literal reads all digits.
		maxw := 9
		if ti+1 < len(toks) && toks[ti+1].letter != 0 {
			maxw = tok.n
		}
		readNum := func(minw, maxw int) (int, bool) {
			j := i
			if j < len(s) && (s[j] == '-' || s[j] == '+') && tok.letter == 'y' {
				j++
			}
			for j < len(s) && j-i < maxw && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j-i < minw {
				return 0, false
			}
			v, err := strconv.Atoi(s[i:j])
			if err != nil {
				return 0, false
			}
			i = j
			return v, true
		}
		var ok bool
		switch tok.letter {
		case 'y', 'u', 'Y':
			if tok.n == 2 {
				var v int
				if v, ok = readNum(2, 2); ok {
					year = 2000 + v
				}
			} else {
				year, ok = readNum(tok.n, max(maxw, 4))
			}
		case 'M', 'L':
			if tok.n >= 3 {
				ok = false
				for m := 1; m <= 12; m++ {
					name := time.Month(m).String()
					if tok.n == 3 {
						name = name[:3]
					}
					if len(s)-i >= len(name) && strings.EqualFold(s[i:i+len(name)], name) {
						month, ok = m, true
						i += len(name)
						break
					}
				}
			} else {
				month, ok = readNum(1, max(tok.n, min(maxw, 2)))
			}
		case 'd':
			day, ok = readNum(1, max(tok.n, min(maxw, 2)))
		case 'D':
			var yd int
			if yd, ok = readNum(1, 3); ok {
				month, day = 1, yd
			}
		case 'H', 'k':
			hour, ok = readNum(1, max(tok.n, min(maxw, 2)))
		case 'h', 'K':
			hour, ok = readNum(1, max(tok.n, min(maxw, 2)))
			hasAmPm = true
		case 'm':
			minute, ok = readNum(1, max(tok.n, min(maxw, 2)))
		case 's':
			sec, ok = readNum(1, max(tok.n, min(maxw, 2)))
		case 'S':
			j := i
			for j < len(s) && j-i < tok.n && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			frac := s[i:j]
			ok = len(frac) > 0
			for len(frac) < 9 {
				frac += "0"
			}
			nano, _ = strconv.Atoi(frac[:9])
			i = j
		case 'a':
			if len(s)-i >= 2 {
				switch strings.ToUpper(s[i : i+2]) {
				case "AM":
					ok = true
				case "PM":
					ok, pm = true, true
				}
				i += 2
			}
		case 'E':
			ok = false
			for d := 0; d < 7; d++ {
				name := time.Weekday(d).String()
				if tok.n < 4 {
					name = name[:3]
				}
				if len(s)-i >= len(name) && strings.EqualFold(s[i:i+len(name)], name) {
					ok = true
					i += len(name)
					break
				}
			}
		case 'X', 'x', 'Z', 'z', 'V', 'O':
			rest := s[i:]
			end := len(rest)
			if k := strings.IndexAny(rest, " "); k >= 0 && tok.letter != 'V' {
				end = k
			}
			z, zok := parseZone(rest[:end])
			if !zok {
				return time.Time{}, false
			}
			zone, ok = z, true
			i += end
		default:
			return time.Time{}, false
		}
		if !ok {
			return time.Time{}, false
		}
	}
	if i != len(s) {
		return time.Time{}, false
	}
	if hasAmPm {
		hour %= 12
		if pm {
			hour += 12
		}
	}
	if month < 1 || month > 12 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), 1, hour, minute, sec, nano, zone).AddDate(0, 0, day-1)
	if day < 1 || (t.Month() != time.Month(month) && !strings.Contains(pattern, "D")) {
		return time.Time{}, false
	}
	return t, true
}
