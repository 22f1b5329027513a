package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/relock-go/relock/bench/internal/report"
)

// compare plots the scale runs of the results files that spec names,
// "LABEL=path,LABEL=path" (a before and an after, say), into
// out/scale-compare.png and .svg.
func compare(spec, out string) error {
	var series []report.ScaleSeries
	var title string
	for _, part := range split(spec) {
		label, path, ok := strings.Cut(part, "=")
		if !ok {
			return fmt.Errorf("-compare: %q is not LABEL=results.json", part)
		}
		r, err := report.ReadJSON(path)
		if err != nil {
			return fmt.Errorf("-compare: %w", err)
		}
		if len(r.Scale) == 0 {
			return fmt.Errorf("-compare: %s has no scale runs", path)
		}
		series = append(series, report.ScaleSeries{Label: label, Runs: r.Scale})
		title = fmt.Sprintf("Many locks, %d waiters each on %d Clients, one redis-server, %d CPUs", r.Config.ScaleWaiters, r.Config.Clients, r.Machine.CPUs)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	files, err := report.WriteScalePlot(filepath.Join(out, "scale-compare"), title, series)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", strings.Join(files, ", "))
	return nil
}
