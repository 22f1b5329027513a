package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LeftoversFile is the file, in a run directory, that lists what the run
// left in its lock services: a JSON array of Leftover (null: nothing).
const LeftoversFile = "leftovers.json"

// Leftover is a key a lock service still held after the run, once every
// lease and wait timeout had passed.
type Leftover struct {
	// Service is the lock service: its namespace.
	Service string `json:"service"`
	Key     string `json:"key"`
	Type    string `json:"type"`
	// TTLMS is the key's time to live in milliseconds, -1 without one.
	TTLMS int64 `json:"ttl_ms"`
	// Family is the key's family in relock's Redis layout
	// (docs/redis-layout.md), "" for none; KeptFamilies are meant to stay.
	Family string `json:"family"`
}

// KeptFamilies are the families of keys meant to outlive every hold: a key
// of any other family, without a TTL, was left behind. A latch's count
// stays until count-downs bring it to zero (a round whose count-downs
// failed keeps it, in Redisson as in relock); a rate limiter set without
// a keep-alive keeps its rate and its permits, as Redisson's does.
var KeptFamilies = []string{"token counter", "semaphore count", "election record", "election log",
	"latch count", "rate limiter", "rate limiter's permits"}

// readLeftovers reads dir's LeftoversFile, and reports whether there is
// one.
func readLeftovers(dir string) ([]Leftover, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, LeftoversFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var out []Leftover
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, false, fmt.Errorf("history: %s: %w", filepath.Join(dir, LeftoversFile), err)
	}
	return out, true, nil
}
