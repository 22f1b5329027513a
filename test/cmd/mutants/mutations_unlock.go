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
	{
		Name: "failed-unlock-keeps-its-slot",
		What: "the slot a last Unlock that failed keeps for its retry is never given up when its hold ends: the handle stays locked for ever unless Unlock is called again",
		Edits: []edit{{
			File: "rlock/handle.go",
			Old:  "h.keepSlot(func(error) { o.leaveSlot(0) })",
			New:  "h.keepSlot(func(error) {})",
		}},
		Pkgs:    []string{"./rlock/"},
		Run:     "^TestFailedUnlockThenLockOnSameHandle$",
		Timeout: 2 * time.Minute,
	},
	{
		Name: "rw-sibling-lapsed-hold-kept",
		What: "an acquisition of one side of an RWMutex leaves the other side's lapsed hold in the hash: a writer is refused as an upgrade, or a stale write field lives on beside the handle's read",
		Edits: []edit{{
			File: "rlock/release_request.go",
			Old:  "\tif o.sibling != nil {\n\t\tif err := o.sibling.dropOwnLapsed(ctx)",
			New:  "\tif false {\n\t\tif err := o.sibling.dropOwnLapsed(ctx)",
		}},
		Pkgs:    []string{"./rlock/"},
		Run:     "^TestFailedUnlockThenLockOnSameHandle$",
		Timeout: 2 * time.Minute,
	},
}
