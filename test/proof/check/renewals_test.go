package check

import (
	"slices"
	"testing"
)

// RenewalsMet counts the holds due a renewal while a fault that hits them
// was on or within a lease after it (leases of 1 s: a renewal every 333 ms
// from the acquisition).
func TestRenewalsMetCountsHoldsDueARenewalUnderAFault(t *testing.T) {
	run := parseRun(t, plain, `
		# go-1 holds across go-1's partition: met. java-1's short hold: not.
		go-1 acquire 0 1 ok
		nemesis partition 400 500 target=go-1
		java-1 acquire 2 3 ok
		java-1 release 8 9 ok
		go-1 release 1000 1001 ok
		# go-2 holds 100 ms during a latency on everyone, then 200 ms
		# from 40 ms after it healed to its first renewal: neither is due one.
		nemesis latency 2000 2500
		go-2 acquire 2100 2101 ok
		go-2 release 2200 2201 ok
		go-2 acquire 2540 2541 ok
		go-2 release 2740 2741 ok
		# java-1 holds until a renewal 600 ms after a reset of everyone
		# healed: met. go-3 is killed holding: its renewal never came.
		nemesis reset 4000 4000
		java-1 acquire 3990 3990 ok
		java-1 release 4700 4701 ok
		go-3 acquire 4800 4801 ok
		nemesis kill 4900 4900 target=go-3
		# a pause of go-1 while nobody holds.
		nemesis pause 6000 7000 target=go-1
		end=8000`)
	got := RenewalsMet(run)
	want := []Renewals{{Fault: "kill", Go: 1}, {Fault: "latency"}, {Fault: "partition", Go: 1}, {Fault: "pause"}, {Fault: "reset", Java: 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("RenewalsMet = %+v, want %+v", got, want)
	}
}
