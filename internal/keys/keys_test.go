package keys

import "testing"

func TestNamesFollowRedissonBraceRule(t *testing.T) {
	tests := []struct{ got, want string }{
		{Channel("orders"), "redisson_lock__channel:{orders}"},
		{Channel("{orders}:1"), "redisson_lock__channel:{orders}:1"},
		{Queue("orders"), "redisson_lock_queue:{orders}"},
		{Timeout("orders"), "redisson_lock_timeout:{orders}"},
		{Token("orders"), "redisson_lock_token:{orders}"},
		{WaiterChannel("orders", "u:7"), "redisson_lock__channel:{orders}:u:7"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestSlot(t *testing.T) {
	// Reference values of CLUSTER KEYSLOT.
	if got := Slot("foo"); got != 12182 {
		t.Errorf("Slot(foo) = %d, want 12182", got)
	}
	if got := Slot("123456789"); got != 12739 {
		t.Errorf("Slot(123456789) = %d, want 12739", got)
	}
	// Hash tags: the first {...} with content decides; an empty one does not.
	same := [][2]string{
		{"{user1000}.following", "user1000"},
		{"foo{{bar}}zap", "{bar"},
		{"x{a}{b}", "a"},
	}
	for _, p := range same {
		if Slot(p[0]) != Slot(p[1]) {
			t.Errorf("Slot(%q) != Slot(%q)", p[0], p[1])
		}
	}
	if Slot("foo{}{bar}") == Slot("bar") {
		t.Errorf("an empty hash tag must not select the next one")
	}
	for _, name := range []string{"orders", "{orders}:x", "a{b}c", "ünïcode\n"} {
		for _, aux := range []string{Channel(name), Queue(name), Timeout(name), Token(name), WaiterChannel(name, "u:1")} {
			if Slot(aux) != Slot(name) {
				t.Errorf("Slot(%q) = %d, differs from lock %q slot %d", aux, Slot(aux), name, Slot(name))
			}
		}
	}
}

func TestReadWriteNames(t *testing.T) {
	for _, c := range []struct{ name, channel, timeouts, base string }{
		{"rw", "redisson_rwlock:{rw}", "{rw}:c:1:rwlock_timeout", "{rw}"},
		{"a{b}c", "redisson_rwlock:a{b}c", "a{b}c:c:1:rwlock_timeout", "a{b}c"},
	} {
		if got := RWChannel(c.name); got != c.channel {
			t.Errorf("RWChannel(%q) = %q, want %q", c.name, got, c.channel)
		}
		if got := ReadTimeouts(c.name, "c:1"); got != c.timeouts {
			t.Errorf("ReadTimeouts(%q) = %q, want %q", c.name, got, c.timeouts)
		}
		if got := ReadTimeoutsBase(c.name) + ":c:1:rwlock_timeout"; got != c.timeouts {
			t.Errorf("ReadTimeoutsBase(%q) gives %q, want %q", c.name, got, c.timeouts)
		}
		if Slot(c.timeouts) != Slot(c.name) || Slot(c.channel) != Slot(c.name) {
			t.Errorf("%q: auxiliary names leave the lock's slot", c.name)
		}
	}
	if got := WriteField("c:1"); got != "c:1:write" {
		t.Errorf("WriteField = %q", got)
	}
}

// A semaphore's channel is told from a lock's by its name alone, braces
// or not.
func TestIsSemaphoreChannel(t *testing.T) {
	for _, name := range []string{"sem", "{sem}:1", "a{b}c"} {
		if !IsSemaphoreChannel(SemaphoreChannel(name)) {
			t.Errorf("%q: not a semaphore's channel", SemaphoreChannel(name))
		}
		for _, other := range []string{Channel(name), RWChannel(name), LatchChannel(name)} {
			if IsSemaphoreChannel(other) {
				t.Errorf("%q taken for a semaphore's channel", other)
			}
		}
	}
}
