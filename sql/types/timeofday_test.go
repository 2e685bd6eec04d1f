package sqltypes

import "testing"

// The string forms of TIME, as Spark 4.2's cast checked on its server (sql/expr/testdata/time
// holds the same cases through CAST).
func TestParseAndFormatTime(t *testing.T) {
	for _, c := range []struct {
		in, out string
	}{
		{"12:34", "12:34:00"}, {"1:2:3", "01:02:03"}, {"T12:34:56.1 ", "12:34:56.1"},
		{"12:34:56.1234567891", "12:34:56.123456"}, {"12:34:56.", "12:34:56"}, {"\t00:00", "00:00:00"},
		{"23:59:59.999999999", "23:59:59.999999"},
	} {
		n, ok := ParseTime(c.in)
		if !ok || FormatTime(n) != c.out {
			t.Errorf("ParseTime(%q) = %d, %v; formats as %q, want %q", c.in, n, ok, FormatTime(n), c.out)
		}
	}
	for _, bad := range []string{"12", "24:00", "12:60", "12:34:", "123:34", "12:3a", "-1:00", "+1:00",
		"T 12:34", " T12:34:56", "12 :34", "12:34:56Z", "2024-01-01 12:34:56", "12:34:60", ""} {
		if n, ok := ParseTime(bad); ok {
			t.Errorf("ParseTime(%q) = %d, want malformed", bad, n)
		}
	}
	if got := TruncateTime(45296987654000, 3); got != 45296987000000 {
		t.Errorf("TruncateTime(…, 3) = %d", got)
	}
	if got := TruncateTime(45296987654000, 0); got != 45296000000000 {
		t.Errorf("TruncateTime(…, 0) = %d", got)
	}
}
