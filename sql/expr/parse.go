package expr

import (
	"strconv"
	"strings"
	"time"
)

// Parsing of date and timestamp strings with Spark's accepted formats
// (DateTimeUtils.stringToDate / stringToTimestamp).

// daysFromCivil returns days since 1970-01-01 for a valid y-m-d, and false for an invalid date.
func daysFromCivil(y, m, d int) (int32, bool) {
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d || int(t.Month()) != m {
		return 0, false
	}
	return int32(floorDiv(t.Unix(), 86400)), true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// scanInt reads up to maxDigits decimal digits from s at i.
func scanInt(s string, i, minDigits, maxDigits int) (int, int, bool) {
	j := i
	for j < len(s) && j-i < maxDigits && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j-i < minDigits {
		return 0, i, false
	}
	n, _ := strconv.Atoi(s[i:j])
	return n, j, true
}

// parseDatePart reads [+-]yyyy[-[m]m[-[d]d]] and returns y, m, d and the index after it.
func parseDatePart(s string) (y, m, d, i int, ok bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		i = 1
	}
	y, i, ok = scanInt(s, i, 4, 7)
	if !ok {
		return
	}
	if neg {
		y = -y
	}
	m, d = 1, 1
	if i < len(s) && s[i] == '-' {
		if m, i, ok = scanInt(s, i+1, 1, 2); !ok {
			return
		}
		if i < len(s) && s[i] == '-' {
			if d, i, ok = scanInt(s, i+1, 1, 2); !ok {
				return
			}
		}
	}
	return y, m, d, i, true
}

// parseDate parses a date string; false when malformed.
func parseDate(s string) (int32, bool) {
	s = strings.TrimSpace(s)
	y, m, d, i, ok := parseDatePart(s)
	if !ok {
		return 0, false
	}
	if i < len(s) && s[i] != ' ' && s[i] != 'T' {
		return 0, false
	}
	return daysFromCivil(y, m, d)
}

// parseTimestamp parses a timestamp string; strings without a zone are in loc. ntz ignores any
// zone. Returns micros since epoch.
func parseTimestamp(s string, loc *time.Location, ntz bool) (int64, bool) {
	s = strings.TrimSpace(s)
	y, m, d, i, ok := parseDatePart(s)
	if !ok {
		return 0, false
	}
	days, ok := daysFromCivil(y, m, d)
	if !ok {
		return 0, false
	}
	var hh, mm, ss, us int
	rest := ""
	if i < len(s) {
		if s[i] != ' ' && s[i] != 'T' {
			return 0, false
		}
		i++
		j := i
		if hh, j, ok = scanInt(s, j, 1, 2); ok && j < len(s) && s[j] == ':' {
			if mm, j, ok = scanInt(s, j+1, 1, 2); !ok {
				return 0, false
			}
			if j < len(s) && s[j] == ':' {
				if ss, j, ok = scanInt(s, j+1, 1, 2); !ok {
					return 0, false
				}
				if j < len(s) && s[j] == '.' {
					k := j + 1
					for k < len(s) && s[k] >= '0' && s[k] <= '9' {
						k++
					}
					frac := s[j+1 : k]
					if len(frac) > 6 {
						frac = frac[:6]
					}
					for len(frac) < 6 {
						frac += "0"
					}
					us, _ = strconv.Atoi(frac)
					j = k
				}
			}
			rest = s[j:]
		} else if ok && j == len(s) {
			return 0, false
		} else {
			rest = s[i:]
			hh = 0
		}
		if hh > 23 || mm > 59 || ss > 59 {
			return 0, false
		}
	}
	zone := loc
	if rz := strings.TrimSpace(rest); rz != "" {
		z, ok := parseZone(rz)
		if !ok {
			return 0, false
		}
		if !ntz {
			zone = z
		}
	}
	if ntz {
		zone = time.UTC
	}
	t := time.Date(y, time.Month(m), d, hh, mm, ss, us*1000, zone)
	_ = days
	return t.UnixMicro(), true
}

// parseZone parses a zone id: Z, UTC, GMT, UT, ±h[h][:mm], GMT±…, or a region id.
func parseZone(z string) (*time.Location, bool) {
	switch strings.ToUpper(z) {
	case "Z", "UTC", "GMT", "UT":
		return time.UTC, true
	}
	up := strings.ToUpper(z)
	for _, p := range []string{"UTC", "GMT", "UT"} {
		if strings.HasPrefix(up, p) && len(z) > len(p) && (z[len(p)] == '+' || z[len(p)] == '-') {
			return parseOffset(z[len(p):])
		}
	}
	if z[0] == '+' || z[0] == '-' {
		return parseOffset(z)
	}
	l, err := time.LoadLocation(z)
	if err != nil {
		return nil, false
	}
	return l, true
}

func parseOffset(z string) (*time.Location, bool) {
	sign := 1
	if z[0] == '-' {
		sign = -1
	}
	body := z[1:]
	var h, m int
	var ok bool
	if strings.Contains(body, ":") {
		hs, ms, _ := strings.Cut(body, ":")
		h, _, ok = scanInt(hs, 0, 1, 2)
		if !ok || len(hs) > 2 {
			return nil, false
		}
		m, _, ok = scanInt(ms, 0, 2, 2)
		if !ok || len(ms) != 2 {
			return nil, false
		}
	} else {
		switch len(body) {
		case 1, 2:
			h, _ = strconv.Atoi(body)
		case 4:
			h, _ = strconv.Atoi(body[:2])
			m, _ = strconv.Atoi(body[2:])
		default:
			return nil, false
		}
		for _, c := range body {
			if c < '0' || c > '9' {
				return nil, false
			}
		}
	}
	if h > 18 || m > 59 {
		return nil, false
	}
	return time.FixedZone(z, sign*(h*3600+m*60)), true
}
