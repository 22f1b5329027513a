// Command check checks a proof run's directory (package history: the
// history files and manifest.json the fleet wrote), writes the report
// (report.md and timeline.png, package report) and porcupine's
// visualization of any illegal register chunk beside the history, and
// prints the verdict, the table of fault kind by workload, the table of
// findings by cause and side, and the findings.
//
//	go run ./cmd/check [flags] RUN_DIR
//
// It exits 0 when the run is proven, 1 on a violation of what must hold,
// 3 when nothing was violated but some part could not be checked in time
// (not proven), and 2 when the run cannot be read.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/relock-go/relock/test/proof/check"
	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/proof/report"
)

// The exit codes.
const (
	exitProven    = 0
	exitViolated  = 1
	exitError     = 2
	exitUnchecked = 3
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := check.DefaultConfig()
	var cfg check.Config
	out := fs.String("out", "", "where to write the report (default: the run's directory)")
	fs.DurationVar(&cfg.ChunkTimeout, "chunk-timeout", def.ChunkTimeout, "porcupine's limit on one chunk of a register's history; a chunk not decided is unchecked")
	fs.IntVar(&cfg.ChunkOps, "chunk-ops", def.ChunkOps, "operations a register chunk aims at")
	fs.DurationVar(&cfg.Horizon, "horizon", def.Horizon, "how long after its invocation (or a fault it overlaps) an operation of unknown outcome on a register without fencing may still take effect")
	fs.DurationVar(&cfg.FairMargin, "fair-margin", def.FairMargin, "how much earlier a relock fair waiter must have been invoked to count as the earlier arrival")
	fs.DurationVar(&cfg.FairMarginRedisson, "fair-margin-redisson", def.FairMarginRedisson, "how much earlier a Redisson fair waiter must have been invoked to count as the earlier arrival")
	fs.DurationVar(&cfg.Slack, "slack", def.Slack, "liveness: the slack beyond a waiter's wait, or beyond one lease after a fault healed")
	fs.IntVar(&cfg.MaxVisualizations, "visualizations", def.MaxVisualizations, "porcupine visualizations to write at most")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: check [flags] RUN_DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitError
	}
	dir := fs.Arg(0)
	if *out == "" {
		*out = dir
	}
	cfg.VisualDir = *out
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(stderr, "check:", err)
		return exitError
	}
	began := time.Now()
	r, err := history.Load(dir)
	if err != nil {
		fmt.Fprintln(stderr, "check:", err)
		return exitError
	}
	loaded := time.Since(began)
	res, err := check.Check(r, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "check:", err)
		return exitError
	}
	files, err := report.Write(*out, r, res)
	if err != nil {
		fmt.Fprintln(stderr, "check:", err)
		return exitError
	}
	fmt.Fprintf(stdout, "%s: %d operations of %d processes read in %v, checked in %v\n\n", report.Verdict(res), len(r.Ops), len(r.Procs),
		loaded.Round(time.Millisecond), (time.Since(began) - loaded).Round(time.Millisecond))
	if err := report.Table(stdout, r, res); err != nil {
		fmt.Fprintln(stderr, "check:", err)
		return exitError
	}
	fmt.Fprintln(stdout)
	if err := report.Causes(stdout, res); err != nil {
		fmt.Fprintln(stderr, "check:", err)
		return exitError
	}
	fmt.Fprintln(stdout)
	for _, f := range res.Findings {
		if f.Severity != check.Measured {
			fmt.Fprintln(stdout, f)
		}
	}
	fmt.Fprintf(stdout, "%d violations, %d unchecked, %d measured; report: %v; visualizations: %v\n",
		res.Violations, res.Unchecked, res.Measured, files, res.Visualizations)
	switch {
	case res.Failed():
		return exitViolated
	case !res.Proven():
		return exitUnchecked
	}
	return exitProven
}
