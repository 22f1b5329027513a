// Package report writes what a proof run showed: a Markdown report (the
// table of fault kind by workload and the table of findings by cause and
// side that docs/guarantees.md gives users, then each name's figures and
// the findings) and a PNG timeline
// (acquisitions per second on each side, faults shaded, violations and
// measured findings marked).
//
// The table's cells count acquisitions made while a fault was on or its
// effects could last (its span, then one lease and a second), and the
// findings in that span; "no fault" holds the rest. A cell with
// violations fails the run; measured findings are what cannot hold under
// that fault, counted (package check says which are which).
package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/relock-go/relock/test/proof/check"
	"github.com/relock-go/relock/test/proof/history"
)

// faultOrder is the order of the table's rows; other kinds follow, sorted.
var faultOrder = []string{check.NoFault, "partition", "latency", "reset", "pause", "kill",
	"restart-always", "restart-everysec", "restart-nopersist", "failover", "failover-ack", "script-flush"}

// Table writes the table of fault kind by workload as Markdown: in each
// cell the acquisitions, then the violations, unchecked parts and
// measured findings if any. The first column counts the faults of each
// kind injected.
func Table(w io.Writer, run *history.Run, res *check.Result) error {
	var workloads []string
	for _, wl := range history.Workloads {
		if slices.ContainsFunc(res.Cells, func(c check.Cell) bool { return c.Workload == wl }) {
			workloads = append(workloads, wl)
		}
	}
	injected := map[string]int{}
	for _, f := range run.Faults {
		injected[f.Kind]++
	}
	var kinds []string
	for _, c := range res.Cells {
		if !slices.Contains(kinds, c.Fault) {
			kinds = append(kinds, c.Fault)
		}
	}
	for k := range injected {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.SortFunc(kinds, func(a, b string) int {
		ia, ib := rank(a), rank(b)
		if ia != ib {
			return ia - ib
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	b.WriteString("| fault (injected) |")
	for _, wl := range workloads {
		b.WriteString(" " + wl + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(workloads)) + "\n")
	for _, k := range kinds {
		if k == check.NoFault {
			b.WriteString("| no fault |")
		} else {
			fmt.Fprintf(&b, "| %s (%d) |", k, injected[k])
		}
		for _, wl := range workloads {
			i := slices.IndexFunc(res.Cells, func(c check.Cell) bool { return c.Fault == k && c.Workload == wl })
			if i < 0 {
				b.WriteString(" |")
				continue
			}
			b.WriteString(" " + cell(res.Cells[i]) + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func rank(kind string) int {
	if i := slices.Index(faultOrder, kind); i >= 0 {
		return i
	}
	return len(faultOrder)
}

// cell formats one cell: "12,345", "12,345, 3 measured", "12,345, **1
// violation**".
func cell(c check.Cell) string {
	s := thousands(int64(c.Acquisitions))
	if c.Violations > 0 {
		s += fmt.Sprintf(", **%s**", plural(c.Violations, "violation"))
	}
	if c.Unchecked > 0 {
		s += fmt.Sprintf(", **%d unchecked**", c.Unchecked)
	}
	if c.Measured > 0 {
		s += fmt.Sprintf(", %d measured", c.Measured)
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// thousands formats n with commas: 1,234,567.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Names writes a table of each name's figures as Markdown.
func Names(w io.Writer, res *check.Result) error {
	var b strings.Builder
	b.WriteString("| name | workload | acquisitions | register | overlaps | lost updates | most inside | most overtaken (judged, not) | waiters (not judged) | longest wait | longest free wait | woken after a release (longest) | violations | measured |\n")
	b.WriteString("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, n := range res.Names {
		lost := "-"
		if n.Register != "" && n.LostUpdates >= 0 {
			lost = fmt.Sprint(n.LostUpdates)
		}
		dash := func(v int, applies bool) string {
			if !applies {
				return "-"
			}
			return fmt.Sprint(v)
		}
		sem := n.Workload == history.Semaphore || n.Workload == history.PESemaphore
		register := n.Register
		if register == "" {
			register = "-"
		}
		overtaken := "-"
		if n.Workload == history.Fair {
			overtaken = fmt.Sprintf("%d (%d, %d)", n.MaxOvertaken, n.FairWaiters, n.FairSkipped)
		}
		free := "-"
		if !sem {
			free = n.FreeLongest.Round(time.Millisecond).String()
		}
		woken := "-"
		if n.Workload == history.Plain || n.Workload == history.Fenced {
			woken = fmt.Sprintf("%s (%s)", thousands(int64(n.Woken)), n.WakeLongest.Round(time.Millisecond))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s (%s) | %s | %s | %s | %d | %d |\n", n.Name, n.Workload, thousands(int64(n.Acquisitions)),
			register, dash(n.Overlaps, !sem), lost, dash(n.MaxInside, sem), overtaken, thousands(int64(n.Waiters)), thousands(int64(n.WaitersUnjudged)),
			n.LongestWait.Round(time.Millisecond), free, woken, n.Violations, n.Measured)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
