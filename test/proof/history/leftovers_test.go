package history

import (
	"strings"
	"testing"
)

// Load reads the leftovers the fleet listed: none listed (null), a list,
// or no file at all (HasLeftovers false); a file that is no list is an
// error naming it.
func TestLoadReadsTheLeftovers(t *testing.T) {
	line := `{"type":"invoke","process":"go-1","side":"go","workload":"fenced","name":"f","id":1,"op":"acquire","t":100000000000}` + "\n"
	for _, tc := range []struct {
		name, file string
		want       int
		has        bool
		err        string
	}{
		{"none", "", 0, false, ""},
		{"null", "null\n", 0, true, ""},
		{"two", `[{"service":"single","key":"k","type":"hash","ttl_ms":-1,"family":"lock"},{"service":"ack","key":"c","type":"string","ttl_ms":-1,"family":"token counter"}]`, 2, true, ""},
		{"bad", `{"key":"k"}`, 0, false, LeftoversFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"go-1.jsonl": line}
			if tc.file != "" {
				files[LeftoversFile] = tc.file
			}
			r, err := Load(writeRun(t, spec(), files))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Leftovers) != tc.want || r.HasLeftovers != tc.has {
				t.Fatalf("leftovers %+v (listed %v), want %d (listed %v)", r.Leftovers, r.HasLeftovers, tc.want, tc.has)
			}
		})
	}
}
