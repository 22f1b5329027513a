package keys

import (
	"strings"
	"testing"
)

// The fuzz targets run their seed corpus with every `go test`. To search
// for new inputs, run one at a time, for example
//
//	go test -run '^$' -fuzz '^FuzzAuxiliaryNames$' -fuzztime 30s ./internal/keys
//	go test -run '^$' -fuzz '^FuzzSlot$' -fuzztime 30s ./internal/keys
//
// Failing inputs are saved under testdata/fuzz/<target>/ and replayed by
// every later `go test` until removed.

// nameSeeds are lock names at the edges of the brace rule and of Redis's
// hash-tag rule.
var nameSeeds = []string{
	"orders", "orders:42", "{orders}:1", "a{b}c", "}{a}", "x{a}{b}",
	"ünïcode ✓", "line\nbreak", "nul\x00byte", "\xff\xfe",
	"", "{", "}", "{}", "a{}b", "{}{a}", "a}b", "a{b", "a}{", "}a",
	strings.Repeat("long", 16<<10),
}

// owner is an owner id as the library makes them: "<client UUID>:<seq>".
const owner = "8d2c53a1-5b0e-4f4e-9a51-2f0d8f3b6c7e:12"

// FuzzAuxiliaryNames checks, for any lock name, that every auxiliary key
// and channel is the prefix followed by the name, braced unless the name
// already holds a "{", and that it hashes to the lock's cluster slot
// whenever Redisson's layout allows it (KeepsSlot, the rule every lock name must follow).
func FuzzAuxiliaryNames(f *testing.F) {
	for _, name := range nameSeeds {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		braced := "{" + name + "}"
		if strings.Contains(name, "{") {
			braced = name
		}
		for _, aux := range []struct{ got, prefix, suffix string }{
			{Channel(name), "redisson_lock__channel:", ""},
			{Queue(name), "redisson_lock_queue:", ""},
			{Timeout(name), "redisson_lock_timeout:", ""},
			{Token(name), "redisson_lock_token:", ""},
			{WaiterChannel(name, owner), "redisson_lock__channel:", ":" + owner},
			{TurnChannel(name), "relock_turns:", ""},
			{Presence(Channel(name)), "redisson_lock__channel:", ":relock"},
			{RateValue(name), "", ":value"},
			{RatePermits(name), "", ":permits"},
			{RateClient(RatePermits(name), owner), "", ":permits:" + owner},
		} {
			if want := aux.prefix + braced + aux.suffix; aux.got != want {
				t.Fatalf("name %q: got %q, want %q", name, aux.got, want)
			}
			if !strings.HasPrefix(aux.got, aux.prefix) || !strings.Contains(aux.got, name) {
				t.Fatalf("name %q: %q lacks its prefix or the name", name, aux.got)
			}
			if KeepsSlot(name) && Slot(aux.got) != Slot(name) {
				t.Fatalf("name %q: %q is in slot %d, the lock in slot %d", name, aux.got, Slot(aux.got), Slot(name))
			}
		}
	})
}

// FuzzSlot checks Slot against refSlot, and against itself on the key's
// hash tag.
func FuzzSlot(f *testing.F) {
	for _, name := range nameSeeds {
		f.Add(name)
	}
	for _, key := range []string{"foo", "123456789", "{user1000}.following", "foo{{bar}}zap", "foo{}{bar}", "{a}{b}"} {
		f.Add(key)
	}
	f.Fuzz(func(t *testing.T, key string) {
		got := Slot(key)
		if want := refSlot(key); got != want {
			t.Fatalf("Slot(%q) = %d, reference %d", key, got, want)
		}
		if got < 0 || got >= 16384 {
			t.Fatalf("Slot(%q) = %d, outside [0, 16384)", key, got)
		}
		if _, after, ok := strings.Cut(key, "{"); ok {
			if tag, _, ok := strings.Cut(after, "}"); ok && tag != "" && Slot(tag) != got {
				t.Fatalf("Slot(%q) = %d, but its hash tag %q is in slot %d", key, got, tag, Slot(tag))
			}
		}
	})
}

func TestReferenceSlot(t *testing.T) {
	// CRC-16/XMODEM's check value, and CLUSTER KEYSLOT's answers.
	if got := refCRC16([]byte("123456789")); got != 0x31c3 {
		t.Errorf("refCRC16(123456789) = %#x, want 0x31c3", got)
	}
	for key, want := range map[string]int{"foo": 12182, "123456789": 12739, "{user1000}.following": 3443, "foo{}{bar}": 8363} {
		if got := refSlot(key); got != want {
			t.Errorf("refSlot(%q) = %d, want %d", key, got, want)
		}
	}
}

// refSlot is Redis Cluster's key slot computed the long way: the hash tag
// found with strings.Cut, and the CRC by polynomial division.
func refSlot(key string) int {
	if _, after, ok := strings.Cut(key, "{"); ok {
		if tag, _, ok := strings.Cut(after, "}"); ok && tag != "" {
			key = tag
		}
	}
	return int(refCRC16([]byte(key)) % 16384)
}

// refCRC16 is CRC-16/XMODEM by its definition: the remainder of the
// message, followed by 16 zero bits, divided by x^16 + x^12 + x^5 + 1,
// one bit at a time.
func refCRC16(msg []byte) uint16 {
	var r uint32
	for _, b := range append(msg[:len(msg):len(msg)], 0, 0) {
		for i := 7; i >= 0; i-- {
			r = r<<1 | uint32(b>>i&1)
			if r&0x10000 != 0 {
				r ^= 0x11021
			}
		}
	}
	return uint16(r)
}
