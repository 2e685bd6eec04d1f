package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/conf"
)

// optimizerQueries exercise every optimizer rule over views t1(a, b, c), t2(a, d), t3(b, e).
var optimizerQueries = []string{
	"SELECT * FROM t1, t2, t3 WHERE t1.a = t2.a AND t1.b = t3.b",
	"SELECT t1.c, t3.e FROM t3, t2, t1 WHERE t1.a = t2.a AND t3.b = t1.b AND t2.d > t3.e",
	"SELECT * FROM t1, t2 WHERE (t1.a = t2.a AND t1.c > 2) OR (t1.a = t2.a AND t2.d < 3)",
	"SELECT * FROM t1 LEFT JOIN t2 ON t1.a = t2.a WHERE t2.d > 1",
	"SELECT * FROM t1 LEFT JOIN t2 ON t1.a = t2.a WHERE t2.d IS NULL",
	"SELECT * FROM t1 LEFT JOIN t2 ON t1.a = t2.a AND t2.d > 2 AND t1.c > 1",
	"SELECT * FROM t1 RIGHT JOIN t2 ON t1.a = t2.a AND t1.c > 1 WHERE t1.b = 2 OR t2.d = 1",
	"SELECT * FROM t1 FULL JOIN t2 ON t1.a = t2.a WHERE t1.c > 1",
	"SELECT * FROM t1 FULL JOIN t2 ON t1.a = t2.a WHERE t1.c > 1 AND t2.d > 0",
	"SELECT * FROM t1 WHERE a IN (SELECT a FROM t2 WHERE d > 1) AND c > 0",
	"SELECT * FROM t1 WHERE a NOT IN (SELECT a FROM t2 WHERE d > 1)",
	"SELECT * FROM t1 LEFT ANTI JOIN t2 ON t1.a = t2.a AND t1.c > 1 AND t2.d < 4",
	"SELECT * FROM t1 LEFT SEMI JOIN t2 ON t1.a = t2.a AND t1.c > 1 AND t2.d < 4",
	"SELECT a, s FROM (SELECT a, sum(c) AS s FROM t1 GROUP BY a) WHERE a > 1 AND s > 2",
	"SELECT count(*) FROM t1, t2 WHERE t1.a = t2.a HAVING count(*) > 0",
	"SELECT * FROM (SELECT a, b FROM t1 UNION ALL SELECT a, d FROM t2) WHERE a > 1 AND b < 4",
	"SELECT * FROM (SELECT DISTINCT a, b FROM t1) WHERE a = 2",
	"SELECT x, y FROM (SELECT a + 1 AS x, c * 2 AS y FROM t1) WHERE x > 2 AND y IS NOT NULL",
	"SELECT t2.d, count(*) FROM t1 JOIN t2 ON t1.a = t2.a JOIN t3 ON t3.b = t1.b WHERE t3.e > 1 GROUP BY t2.d",
	"SELECT * FROM t1, t3 WHERE 1 + 1 = 2 AND t1.b = t3.b AND (t3.e > 2 OR false)",
	"SELECT * FROM t1 CROSS JOIN t3 WHERE t1.c < t3.e",
	"SELECT b FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.a > 2) AND a < 3",
	"SELECT * FROM t1 x JOIN t1 y USING (a) WHERE x.b > y.c",
	"SELECT a, rand(1) AS r FROM t1 WHERE a > 1",
	"SELECT * FROM (SELECT a, rand(3) AS r FROM t1) WHERE a > 1",
	"SELECT a, x FROM t1 LATERAL VIEW explode(array(b, c)) v AS x WHERE a > 1 AND x > 1",
	"SELECT * FROM (SELECT * FROM t1 ORDER BY a, b, c LIMIT 3) WHERE c > 1",
	"SELECT * FROM (SELECT * FROM t1 ORDER BY a, b, c) WHERE c > 1",
	"SELECT * FROM t1 JOIN (SELECT a, max(d) AS m FROM t2 GROUP BY a) g ON t1.a = g.a WHERE g.m > 1 AND t1.c > 0",
	"SELECT * FROM (SELECT a FROM t1 INTERSECT SELECT a FROM t2) WHERE a > 1",
	"SELECT * FROM t1, t2 WHERE (t1.c > 2 AND t2.d = 1) OR (t1.b = 1 AND t2.d > 3 AND t1.a = t2.a)",
	"SELECT * FROM t1, t2, t3 WHERE t1.a = t2.a AND ((t3.e = 1 AND t1.b = 2) OR (t3.e = 2 AND t2.d = 1))",
}

// TestOptimizerKeepsResults runs optimizerQueries over seeded random tables (small ranges, with
// NULLs) with the optimizer on and off and compares the rows.
func TestOptimizerKeepsResults(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	val := func() string {
		if rng.IntN(6) == 0 {
			return "NULL"
		}
		return fmt.Sprint(rng.IntN(5))
	}
	table := func(name string, cols ...string) string {
		var rows []string
		for i := 0; i < 6+rng.IntN(10); i++ {
			vs := make([]string, len(cols))
			for j := range cols {
				vs[j] = "CAST(" + val() + " AS INT)"
			}
			rows = append(rows, "("+strings.Join(vs, ", ")+")")
		}
		return fmt.Sprintf("CREATE OR REPLACE TEMP VIEW %s AS SELECT * FROM VALUES %s AS %s(%s)",
			name, strings.Join(rows, ", "), name, strings.Join(cols, ", "))
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := NewSession(WithAllocator(mem))
	ctx := context.Background()
	for round := 0; round < 5; round++ {
		for _, stmt := range []string{table("t1", "a", "b", "c"), table("t2", "a", "d"), table("t3", "b", "e")} {
			res, err := runSQL(ctx, s, stmt)
			if err != nil {
				t.Fatal(err)
			}
			res.Close()
		}
		for _, q := range optimizerQueries {
			var got [2]string
			for i, on := range []string{"true", "false"} {
				if err := s.Conf().Set(conf.OptimizerEnabledKey, on); err != nil {
					t.Fatal(err)
				}
				res, err := runSQL(ctx, s, q)
				if err != nil {
					t.Fatalf("%s (optimizer %s): %v", q, on, err)
				}
				rows, err := render(ctx, s, res)
				if err != nil {
					t.Fatalf("%s (optimizer %s): %v", q, on, err)
				}
				sort.Strings(rows)
				got[i] = strings.Join(rows, "\n")
			}
			if got[0] != got[1] {
				t.Fatalf("seed %d round %d: %s\noptimized:\n%s\nunoptimized:\n%s", seed, round, q, got[0], got[1])
			}
		}
	}
}
