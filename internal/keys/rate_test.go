package keys

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzRateNames checks, for any limiter name and client id, that
// RateNames finds the name in its count key and in a client's, and that
// every name it returns makes the key back.
func FuzzRateNames(f *testing.F) {
	for _, name := range nameSeeds {
		f.Add(name, owner)
		f.Add(name, "value")
	}
	f.Add("a:value", ":value:")
	f.Fuzz(func(t *testing.T, name, client string) {
		if client == "" {
			return // no client has an empty id
		}
		for _, key := range []string{RateValue(name), RateClient(RateValue(name), client)} {
			names := RateNames(key)
			if !slices.Contains(names, name) {
				t.Fatalf("RateNames(%q) = %q, lacks %q", key, names, name)
			}
			for _, n := range names {
				if !makes(n, key) {
					t.Fatalf("RateNames(%q) = %q: %q makes no such key", key, names, n)
				}
			}
		}
	})
}

// makes reports whether key is the limiter name's count key or a
// client's.
func makes(name, key string) bool {
	v := RateValue(name)
	return key == v || (strings.HasPrefix(key, v+":") && len(key) > len(v)+1 && RateClient(v, key[len(v)+1:]) == key)
}

func TestRateNames(t *testing.T) {
	for key, want := range map[string][]string{
		"{api}:value":                   {"api", "{api}"},
		"{api}:value:c-1":               {"api", "{api}"},
		"a{b}c:value":                   {"a{b}c"},
		"a{b}c:value:c-1":               {"a{b}c"},
		"{api}:permits":                 nil, // a sorted set: no count
		"{api}:value:":                  nil, // no client has an empty id
		"api:value":                     nil, // "api" has braces in its keys
		"counter":                       nil,
		"{a}b}:value":                   {"a}b", "{a}b}"},
		"{x}:value:{y}:value:client-id": {"x", "{x}", "{x}:value:{y}"},
	} {
		if got := RateNames(key); !slices.Equal(got, want) {
			t.Errorf("RateNames(%q) = %q, want %q", key, got, want)
		}
	}
}

// FuzzReadTimeouts checks that every read hold's lease key is one, and
// that the lock's other keys are not.
func FuzzReadTimeouts(f *testing.F) {
	for _, name := range nameSeeds {
		f.Add(name, owner, uint16(1))
	}
	f.Fuzz(func(t *testing.T, name, owner string, n uint16) {
		key := ReadTimeouts(name, owner) + ":" + strconv.Itoa(int(n))
		if !IsReadTimeout(key) {
			t.Fatalf("IsReadTimeout(%q) = false", key)
		}
		for _, other := range []string{RWChannel(name), ReadTimeouts(name, owner), RateValue(name), Token(name)} {
			if IsReadTimeout(other) {
				t.Fatalf("IsReadTimeout(%q) = true", other)
			}
		}
	})
}

func TestIsReadTimeout(t *testing.T) {
	for key, want := range map[string]bool{
		"{rw}:c-1:7:rwlock_timeout:1":  true,
		"a{b}c:c-1:7:rwlock_timeout:2": true,
		"rw:c-1:7:rwlock_timeout:1":    false, // no brace: no lock's
		"{rw}:c-1:7:rwlock_timeout:":   false,
		"{rw}:c-1:7:rwlock_timeout:x":  false,
		"{rw}:c-1:7:rwlock_timeout":    false,
		"visits":                       false,
	} {
		if got := IsReadTimeout(key); got != want {
			t.Errorf("IsReadTimeout(%q) = %v, want %v", key, got, want)
		}
	}
}
