package ownerid

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
)

// Owner ids are "<client UUID>:<seq>", seq counting from 1, and unique
// when handed out concurrently.
func TestNextIsUniqueInRedissonsLayout(t *testing.T) {
	s := NewSource()
	if _, err := uuid.Parse(s.Client()); err != nil {
		t.Fatalf("client id %q is not a UUID: %v", s.Client(), err)
	}
	if first := s.Next(); first != s.Client()+":1" {
		t.Fatalf("first owner id %q, want %q", first, s.Client()+":1")
	}
	const goroutines, each = 8, 1000
	ids := make(chan string, goroutines*each)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				ids <- s.Next()
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := make(map[string]bool)
	for id := range ids {
		if !strings.HasPrefix(id, s.Client()+":") || seen[id] {
			t.Fatalf("owner id %q: not of this client, or repeated", id)
		}
		seen[id] = true
	}
	if other := NewSource(); other.Client() == s.Client() {
		t.Fatal("two Sources share a client id")
	}
}
