package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/relock-go/relock/test/proof/check"
)

// causeSides are the table's columns: the side of the holder whose hold
// broke (or of the waiter), then what is on neither: the harness's register
// and the run's leftovers.
var causeSides = []struct{ side, title string }{{"go", "Go (relock)"}, {"java", "Java (Redisson)"}, {"", "neither (harness, leftovers)"}}

// Causes writes the table of findings by cause and side as Markdown: a
// row per cause (violations first, as "no cause"), in each cell the
// findings on that side and how many each check made.
func Causes(w io.Writer, res *check.Result) error {
	type row struct {
		cause string
		total int
		cells map[string][]check.CauseCount
	}
	rows := map[string]*row{}
	for _, cc := range res.Causes {
		r := rows[cc.Cause]
		if r == nil {
			r = &row{cause: cc.Cause, cells: map[string][]check.CauseCount{}}
			rows[cc.Cause] = r
		}
		r.total += cc.Findings
		r.cells[cc.Side] = append(r.cells[cc.Side], cc)
	}
	var order []*row
	for _, r := range rows {
		order = append(order, r)
	}
	slices.SortFunc(order, func(a, b *row) int {
		if (a.cause == "") != (b.cause == "") {
			if a.cause == "" {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.total, a.total), strings.Compare(a.cause, b.cause))
	})
	var b strings.Builder
	b.WriteString("| cause |")
	for _, s := range causeSides {
		b.WriteString(" " + s.title + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(causeSides)) + "\n")
	if len(order) == 0 {
		b.WriteString("| none |" + strings.Repeat(" |", len(causeSides)) + "\n")
	}
	for _, r := range order {
		name := r.cause
		if name == "" {
			name = "**no cause: violations**"
		}
		b.WriteString("| " + name + " |")
		for _, s := range causeSides {
			if c := causeCell(r.cells[s.side]); c != "" {
				b.WriteString(" " + c)
			}
			b.WriteString(" |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// causeCell formats one cell: "1,036 (exclusion 800, lost-updates 236)".
func causeCell(ccs []check.CauseCount) string {
	if len(ccs) == 0 {
		return ""
	}
	slices.SortFunc(ccs, func(a, b check.CauseCount) int {
		return cmp.Or(cmp.Compare(b.Findings, a.Findings), strings.Compare(a.Check, b.Check))
	})
	total := 0
	parts := make([]string, len(ccs))
	for i, cc := range ccs {
		total += cc.Findings
		parts[i] = fmt.Sprintf("%s %s", cc.Check, thousands(int64(cc.Findings)))
	}
	return fmt.Sprintf("%s (%s)", thousands(int64(total)), strings.Join(parts, ", "))
}
