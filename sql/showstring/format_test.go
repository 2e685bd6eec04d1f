package showstring

import "testing"

func TestFormat(t *testing.T) {
	names := []string{"id", "name"}
	rows := [][]string{{"1", "alice"}, {"22", "a rather long name that goes on"}, {"NULL", ""}}
	cases := []struct {
		name     string
		rows     [][]string
		numRows  int
		truncate int
		vertical bool
		want     string
	}{
		{"truncated right-aligned", rows, 20, 20, false, "" +
			"+----+--------------------+\n" +
			"|  id|                name|\n" +
			"+----+--------------------+\n" +
			"|   1|               alice|\n" +
			"|  22|a rather long nam...|\n" +
			"|NULL|                    |\n" +
			"+----+--------------------+\n"},
		{"untruncated left-aligned", rows, 20, 0, false, "" +
			"+----+-------------------------------+\n" +
			"|id  |name                           |\n" +
			"+----+-------------------------------+\n" +
			"|1   |alice                          |\n" +
			"|22  |a rather long name that goes on|\n" +
			"|NULL|                               |\n" +
			"+----+-------------------------------+\n"},
		{"more rows than shown", rows, 2, 20, false, "" +
			"+---+--------------------+\n" +
			"| id|                name|\n" +
			"+---+--------------------+\n" +
			"|  1|               alice|\n" +
			"| 22|a rather long nam...|\n" +
			"+---+--------------------+\n" +
			"only showing top 2 rows\n"},
		{"one row shown", rows, 1, 20, false, "" +
			"+---+-----+\n" +
			"| id| name|\n" +
			"+---+-----+\n" +
			"|  1|alice|\n" +
			"+---+-----+\n" +
			"only showing top 1 row\n"},
		{"negative numRows is zero", rows, -3, 20, false, "" +
			"+---+----+\n" +
			"| id|name|\n" +
			"+---+----+\n" +
			"+---+----+\n" +
			"only showing top 0 rows\n"},
		{"short truncation keeps names", [][]string{{"12345", "abcdef"}}, 20, 3, false, "" +
			"+---+----+\n" +
			"| id|name|\n" +
			"+---+----+\n" +
			"|123| abc|\n" +
			"+---+----+\n"},
		{"control characters escaped before truncation", [][]string{{"a\tb", "line1\nline2 and more text"}}, 20, 20, false, "" +
			"+----+--------------------+\n" +
			"|  id|                name|\n" +
			"+----+--------------------+\n" +
			"|a\\tb|line1\\nline2 and ...|\n" +
			"+----+--------------------+\n"},
		{"full-width characters count twice", [][]string{{"日本", "x"}}, 20, 20, false, "" +
			"+----+----+\n" +
			"|  id|name|\n" +
			"+----+----+\n" +
			"|日本|   x|\n" +
			"+----+----+\n"},
		{"empty", nil, 20, 20, false, "" +
			"+---+----+\n" +
			"| id|name|\n" +
			"+---+----+\n" +
			"+---+----+\n"},
		{"vertical", rows[:2], 20, 0, true, "" +
			"-RECORD 0-------------------------------\n" +
			" id   | 1                               \n" +
			" name | alice                           \n" +
			"-RECORD 1-------------------------------\n" +
			" id   | 22                              \n" +
			" name | a rather long name that goes on \n"},
		{"vertical empty", nil, 20, 20, true, "(0 rows)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Format(names, c.rows, c.numRows, c.truncate, c.vertical); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
