package main

import "time"

// unlockMutations are the mutations of what a handle does after an Unlock
// that failed.
var unlockMutations = []mutation{
	{
		Name: "failed-runlock-reentered",
		What: "a read acquisition beside another read slot of its handle (the one an RUnlock that failed keeps) re-enters the handle's lapsed read hold instead of releasing it: its renewal resumes, and a read nobody holds keeps writers out for ever",
		Edits: []edit{{
			File: "rlock/wait_loop.go",
			Old:  "\tif entry.afresh != nil {",
			New:  "\tif entry.afresh != nil && entry.line.slots(true) <= 1 {",
		}},
		Pkgs:    []string{"./rlock/"},
		Run:     "^TestFailedRUnlockThenRLockLeavesNoReadHold$",
		Timeout: 2 * time.Minute,
	},
}
