// Command renewals prints, for a proof run's directory, how many holds of
// locks the watchdog keeps met each kind of fault injected: were due a
// renewal while a fault that hits them was on, or within a lease after it
// (check.RenewalsMet), by side. A kind that met none did not put the
// watchdog, nor relock's promise to tell a holder of its loss, to the
// test in that run.
//
//	go run ./cmd/renewals RUN_DIR
//
// It exits 2 when the run cannot be read.
package main

import (
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/relock-go/relock/test/proof/check"
	"github.com/relock-go/relock/test/proof/history"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: renewals RUN_DIR")
		return 2
	}
	r, err := history.Load(args[0])
	if err != nil {
		fmt.Fprintln(stderr, "renewals:", err)
		return 2
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "fault\tGo holds due a renewal\tJava holds due a renewal\t")
	for _, m := range check.RenewalsMet(r) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", m.Fault, m.Go, m.Java)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintln(stderr, "renewals:", err)
		return 2
	}
	return 0
}
