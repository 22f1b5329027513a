package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/relock-go/relock/test/proof/check"
	"github.com/relock-go/relock/test/proof/history"
)

// The files Write writes into a run's directory.
const (
	MarkdownFile = "report.md"
	TimelineFile = "timeline.png"
)

// Write writes the report (MarkdownFile) and the timeline (TimelineFile)
// into dir, and returns their paths.
func Write(dir string, run *history.Run, res *check.Result) ([]string, error) {
	md := filepath.Join(dir, MarkdownFile)
	f, err := os.Create(md)
	if err != nil {
		return nil, err
	}
	if err := Markdown(f, run, res); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	png := filepath.Join(dir, TimelineFile)
	if err := Timeline(png, run, res); err != nil {
		return nil, err
	}
	return []string{md, png}, nil
}

// Markdown writes the whole report: the verdict, the table of fault kind by
// workload, the table of findings by cause and side, each name's figures,
// and the findings (every violation and
// unchecked part, and examples of what was measured).
func Markdown(w io.Writer, run *history.Run, res *check.Result) error {
	var b strings.Builder
	start := time.Unix(0, run.Start).UTC()
	sides := map[string]int{}
	for _, p := range run.Procs {
		sides[p.Side]++
	}
	fmt.Fprintf(&b, "# Proof run of %s\n\n", start.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "%s, seed %d: %d Go and %d Java processes, %d names, %s acquisitions, %d faults.\n\n",
		time.Duration(run.End-run.Start).Round(time.Second), run.Manifest.Seed, sides["go"], sides["java"], len(run.Names),
		thousands(int64(acquisitions(res))), len(run.Faults))
	fmt.Fprintf(&b, "**%s**: %s, %s unchecked, %d measured.\n\n", Verdict(res), plural(res.Violations, "violation"), fmt.Sprint(res.Unchecked), res.Measured)
	b.WriteString("## Acquisitions by fault and workload\n\n")
	if err := Table(&b, run, res); err != nil {
		return err
	}
	b.WriteString("\nA cell counts the acquisitions made while the fault was on or its effects could last (its span, then one lease and a second), and the findings in that span.\n\n")
	b.WriteString("## Findings by cause and side\n\n")
	if err := Causes(&b, res); err != nil {
		return err
	}
	b.WriteString("\nA finding counts on the side of the holder whose hold broke (for an overlap nothing explains, the earlier holder), of the waiter, or for a lost update, of the holder whose hold broke where the writers overlapped, else of the write whose update was lost; neither side's are the harness's register's and the run's leftovers.\n\n")
	b.WriteString("## Names\n\n")
	if err := Names(&b, res); err != nil {
		return err
	}
	b.WriteString("\n## Findings\n\n")
	if len(res.Findings) == 0 {
		b.WriteString("None.\n")
	}
	for _, f := range res.Findings {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	if len(res.Visualizations) > 0 {
		b.WriteString("\nporcupine's visualizations of the illegal chunks:\n\n")
		for _, v := range res.Visualizations {
			fmt.Fprintf(&b, "- %s\n", v)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Verdict is the run's verdict in a word or two: "proven" (no violation,
// nothing unchecked), "VIOLATED", or "not proven" (unchecked parts).
func Verdict(res *check.Result) string {
	switch {
	case res.Failed():
		return "VIOLATED"
	case !res.Proven():
		return "not proven"
	}
	return "proven"
}
