package main

import "time"

// operatorMutations are the mutations of what operators see: relock's
// listing and refusals, and Inspect of a rate limiter per client.
var operatorMutations = []mutation{
	{
		Name:    "list-shows-limiter-counts",
		What:    "relock list lists a rate limiter's counts of permits, its clients' too, as counts of their own",
		Edits:   []edit{{File: "cmd/relock/list.go", Old: "if _, ok := limiters[name]; !ok {", New: "if _, ok := limiters[\"\"]; !ok {"}},
		Pkgs:    []string{"./cmd/relock/"},
		Run:     "^TestListOneLinePerObject$",
		Timeout: 3 * time.Minute,
	},
	{
		Name:    "leader-of-a-limiter",
		What:    "relock leader takes a rate limiter for an election that has no leader",
		Edits:   []edit{{File: "cmd/relock/leader.go", Old: `if info.Kind != rlock.KindElection && info.Kind != "" {`, New: `if info.Kind != rlock.KindElection && info.Kind != "" && info.Kind != rlock.KindRateLimiter {`}},
		Pkgs:    []string{"./cmd/relock/"},
		Run:     "^TestEveryKindOfObject$",
		Timeout: 3 * time.Minute,
	},
	{
		Name:    "rate-clients-unread",
		What:    "Inspect of a rate limiter per client reads the inspecting Client's permits alone, not every client's",
		Edits:   []edit{{File: "rlock/rate_inspect.go", Old: "if err == nil && cfg.PerClient {", New: "if err == nil && cfg.PerClient && cfg.Rate < 0 {"}},
		Pkgs:    []string{"./rlock/", "./cmd/relock/"},
		Run:     "^(TestRateLimiterInspectClients|TestInspectRatePerClient)$",
		Timeout: 3 * time.Minute,
	},
}
