package expr

import (
	"errors"
	"regexp"
	"strings"
	"time"
)

// javaShortIDs is java.time.ZoneId.SHORT_IDS, the aliases Spark's session time zone accepts
// (DateTimeUtils.getZoneId resolves ids with ZoneId.of(id, SHORT_IDS)).
var javaShortIDs = map[string]string{
	"EST": "-05:00", "HST": "-10:00", "MST": "-07:00",
	"ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
	"ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo",
	"BST": "Asia/Dhaka", "CAT": "Africa/Harare", "CNT": "America/St_Johns",
	"CST": "America/Chicago", "CTT": "Asia/Shanghai", "EAT": "Africa/Addis_Ababa",
	"ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis", "IST": "Asia/Kolkata",
	"JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
	"NST": "Pacific/Auckland", "PLT": "Asia/Karachi", "PNT": "America/Phoenix",
	"PRT": "America/Puerto_Rico", "PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal",
	"VST": "Asia/Ho_Chi_Minh",
}

var (
	// Spark's DateTimeUtils.getZoneId first rewrites "+h:" to "+0h:" and a trailing "+hh:m"
	// to "+hh:0m" (formats Spark accepted before 3.0).
	singleHourTz   = regexp.MustCompile(`([+-])(\d):`)
	singleMinuteTz = regexp.MustCompile(`([+-])(\d\d):(\d)$`)
	// javaRegionID is the shape java.time.ZoneRegion accepts.
	javaRegionID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9~/._+-]+$`)
)

var errUnknownZone = errors.New("unknown time zone")

// LoadZone resolves a session time zone id the way Spark does (DateTimeUtils.getZoneId:
// java.time.ZoneId.of with SHORT_IDS): a region id of the tz database ("America/New_York"),
// "Z", "UTC", "GMT", "UT", an offset "+h", "+hh", "+hh:mm", "+hhmm", "+hh:mm:ss", "+hhmmss" up
// to ±18:00, one of those after "UTC", "GMT" or "UT" ("GMT+8"), or a Java short id ("PST").
// Ids are case-sensitive, as in Java.
func LoadZone(id string) (*time.Location, error) {
	norm := id
	if m := singleHourTz.FindStringSubmatchIndex(norm); m != nil { // Java's replaceFirst
		norm = norm[:m[0]] + norm[m[2]:m[3]] + "0" + norm[m[4]:m[5]] + ":" + norm[m[1]:]
	}
	if m := singleMinuteTz.FindStringSubmatchIndex(norm); m != nil {
		norm = norm[:m[0]] + norm[m[2]:m[3]] + norm[m[4]:m[5]] + ":0" + norm[m[6]:m[7]]
	}
	if alias, ok := javaShortIDs[norm]; ok {
		norm = alias
	}
	if len(norm) <= 1 || norm[0] == '+' || norm[0] == '-' {
		secs, ok := javaOffset(norm)
		if !ok {
			return nil, errUnknownZone
		}
		return time.FixedZone(id, secs), nil
	}
	for _, prefix := range []string{"UTC", "GMT", "UT"} {
		if rest, ok := strings.CutPrefix(norm, prefix); ok && (rest == "" || rest[0] == '+' || rest[0] == '-') {
			if rest == "" {
				return time.FixedZone(id, 0), nil
			}
			secs, ok := javaOffset(rest)
			if !ok {
				return nil, errUnknownZone
			}
			return time.FixedZone(id, secs), nil
		}
	}
	if !javaRegionID.MatchString(norm) || strings.HasPrefix(norm, "posix/") || strings.HasPrefix(norm, "right/") {
		return nil, errUnknownZone
	}
	switch norm {
	case "Local", "Factory", "localtime", "posixrules":
		return nil, errUnknownZone
	}
	loc, err := time.LoadLocation(norm)
	if err != nil {
		return nil, errUnknownZone
	}
	return loc, nil
}

// javaOffset parses a java.time.ZoneOffset id: "Z", ±h, ±hh, ±hh:mm, ±hhmm, ±hh:mm:ss,
// ±hhmmss, at most ±18:00. It returns the offset in seconds.
func javaOffset(s string) (int, bool) {
	if s == "Z" {
		return 0, true
	}
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	b := s[1:]
	digits := func(p string) (int, bool) {
		if len(p) != 2 || p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9' {
			return 0, false
		}
		return int(p[0]-'0')*10 + int(p[1]-'0'), true
	}
	var h, m, sec int
	ok := true
	switch len(b) {
	case 1:
		if b[0] < '0' || b[0] > '9' {
			return 0, false
		}
		h = int(b[0] - '0')
	case 2:
		h, ok = digits(b)
	case 4:
		h, ok = digits(b[:2])
		if ok {
			m, ok = digits(b[2:])
		}
	case 5:
		if b[2] != ':' {
			return 0, false
		}
		h, ok = digits(b[:2])
		if ok {
			m, ok = digits(b[3:])
		}
	case 6:
		h, ok = digits(b[:2])
		if ok {
			m, ok = digits(b[2:4])
		}
		if ok {
			sec, ok = digits(b[4:])
		}
	case 8:
		if b[2] != ':' || b[5] != ':' {
			return 0, false
		}
		h, ok = digits(b[:2])
		if ok {
			m, ok = digits(b[3:5])
		}
		if ok {
			sec, ok = digits(b[6:])
		}
	default:
		return 0, false
	}
	if !ok || h > 18 || m > 59 || sec > 59 || (h == 18 && (m > 0 || sec > 0)) {
		return 0, false
	}
	return sign * (h*3600 + m*60 + sec), true
}
