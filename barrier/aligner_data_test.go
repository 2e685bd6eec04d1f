package barrier

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestAlignerScripts runs testdata/* scripts against an Aligner:
//
//	new senders=<n0>,<n1>,… [policy=min|max]
//	barrier from=<input>.<sender> epoch=<n>   → aligned | waiting
//	watermark from=<input>.<sender> ts=<n>    → watermark <merged> | unchanged
//	end from=<input>.<sender>                 → aligned / input ended / all ended, or ok
//	blocked from=<input>.<sender>             → true | false
func TestAlignerScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var a *Aligner
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			arg := func(key string) string {
				for _, ca := range d.CmdArgs {
					if ca.Key == key && len(ca.Vals) > 0 {
						return strings.Join(ca.Vals, ",")
					}
				}
				return ""
			}
			num := func(key string) int64 {
				n, err := strconv.ParseInt(arg(key), 10, 64)
				if err != nil {
					d.Fatalf(t, "%s: %v", key, err)
				}
				return n
			}
			from := func() SenderID {
				var id SenderID
				if _, err := fmt.Sscanf(arg("from"), "%d.%d", &id.Input, &id.Sender); err != nil {
					d.Fatalf(t, "from: %v", err)
				}
				return id
			}
			switch d.Cmd {
			case "new":
				var senders []int
				for _, s := range strings.Split(arg("senders"), ",") {
					n, err := strconv.Atoi(s)
					if err != nil {
						d.Fatalf(t, "senders: %v", err)
					}
					senders = append(senders, n)
				}
				a = NewAligner(senders)
				if p := arg("policy"); p != "" {
					pol, err := ParsePolicy(p)
					if err != nil {
						return err.Error()
					}
					a.SetPolicy(pol)
				}
				return "ok"
			case "barrier":
				if a.Barrier(from(), num("epoch")) {
					if wm, adv := a.Advance(); adv {
						return fmt.Sprintf("aligned\nwatermark %d", wm)
					}
					return "aligned"
				}
				return "waiting"
			case "watermark":
				if wm, adv := a.Watermark(from(), num("ts")); adv {
					return fmt.Sprintf("watermark %d", wm)
				}
				return "unchanged"
			case "end":
				aligned, inputEnded, allEnded := a.End(from())
				var out []string
				if aligned {
					out = append(out, "aligned")
				}
				if inputEnded {
					out = append(out, "input ended")
				}
				if allEnded {
					out = append(out, "all ended")
				}
				if len(out) == 0 {
					return "ok"
				}
				return strings.Join(out, "\n")
			case "blocked":
				return strconv.FormatBool(a.Blocked(from()))
			case "policy":
				p, err := ParsePolicy(arg("name"))
				if err != nil {
					return err.Error()
				}
				return p.String()
			}
			d.Fatalf(t, "unknown command %s", d.Cmd)
			return ""
		})
	})
}
