package main

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// TestEveryKindOfObject makes an object of every kind that package rlock
// declares (read from its source, so that a kind added later is in this
// test) and checks what relock says of it: inspect reports that kind, list
// shows each once (none of the keys they keep beside their names is a
// line), a leader election alone is led, and every object that is no lock
// is refused by unlock with its kind in words.
func TestEveryKindOfObject(t *testing.T) {
	s := fresh(t)
	ctx := testkit.Ctx(t, 20*time.Second)
	var names []string
	for _, k := range declaredKinds(t) {
		make := objectOf[k]
		if make == nil {
			t.Errorf("no object of kind %q: add one to objectOf", k)
			continue
		}
		if _, ok := kindWords[k]; !ok {
			t.Errorf("kind %q has no words in kindWords", k)
		}
		name := "kind:" + string(k)
		make(ctx, t, s, name)
		var v lockView
		r := relock(t, "", "inspect", "--json", name)
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v.Kind != string(k) {
			t.Errorf("inspect %s = %s (%v), want kind %q", name, r.stdout, err, k)
		}
		names = append(names, name)
	}

	var listed []string
	for _, line := range strings.Split(strings.TrimSpace(relock(t, "", "list").stdout), "\n")[1:] {
		listed = append(listed, strings.Fields(line)[0])
	}
	if slices.Sort(names); !slices.Equal(listed, names) {
		t.Errorf("list shows %q, want each object once: %q", listed, names)
	}

	for _, name := range names {
		k := rlock.Kind(strings.TrimPrefix(name, "kind:"))
		leader := relock(t, "", "leader", name)
		unlock := relock(t, "", "unlock", "--force", "--yes", name)
		switch {
		case k == rlock.KindElection:
			leader.want(t, 0, []string{"leader    \"v\"\n"}, nil)
		default:
			leader.want(t, 1, nil, []string{"relock leader: " + strconv.Quote(name) + " is no leader election: it is a " + kindText(k) + " (relock inspect shows it)\n"})
		}
		if k.Counting() {
			unlock.want(t, 1, nil, []string{"relock unlock: " + strconv.Quote(name) + " is a " + kindText(k) + ", not a lock: it has no holder to unlock"})
		} else {
			unlock.want(t, 0, []string{"deleted lock " + strconv.Quote(name)}, nil)
		}
	}
}

// objectOf makes, for each kind, an object of that kind called name that
// Inspect tells by its keys alone.
var objectOf = map[rlock.Kind]func(ctx context.Context, t *testing.T, s server, name string){
	rlock.KindMutex: func(_ context.Context, t *testing.T, s server, name string) { lock(t, s.client().NewMutex(name)) },
	rlock.KindFencedMutex: func(ctx context.Context, t *testing.T, s server, name string) {
		if _, err := s.client().NewFencedMutex(name).Lock(ctx); err != nil {
			t.Fatal(err)
		}
	},
	// A fair lock with nobody waiting shows as a lock: it has no queue.
	rlock.KindFairMutex: func(_ context.Context, t *testing.T, s server, name string) { contendedFair(t, s, name) },
	// Two read holds: two keys of their leases beside the lock.
	rlock.KindRWMutex: func(ctx context.Context, t *testing.T, s server, name string) {
		rw := s.client().NewRWMutex(name)
		for range 2 {
			if err := rw.RLock(ctx); err != nil {
				t.Fatal(err)
			}
		}
	},
	rlock.KindFairRWMutex: func(ctx context.Context, t *testing.T, s server, name string) {
		lock(t, s.client().NewFairRWMutex(name))
		startAcquisition(t, s.client().NewFairRWMutex(name))
		testkit.Eventually(t, 5*time.Second, "the writer queued", func() bool { return s.rdb.LLen(ctx, keys.RWQueue(name)).Val() == 1 })
	},
	rlock.KindElection: func(ctx context.Context, t *testing.T, s server, name string) {
		if _, err := s.client().NewElection(name).Campaign(ctx, "v"); err != nil {
			t.Fatal(err)
		}
	},
	// A semaphore and a latch are told from a bare count by a waiter on
	// their channel.
	rlock.KindSemaphore: func(ctx context.Context, t *testing.T, s server, name string) {
		sem := s.client().NewSemaphore(name)
		if _, err := sem.TrySetPermits(ctx, 1); err != nil {
			t.Fatal(err)
		}
		waitOn(t, s, keys.SemaphoreChannel(name), func(ctx context.Context) { _ = sem.Acquire(ctx, 2) })
	},
	rlock.KindCountDownLatch: func(ctx context.Context, t *testing.T, s server, name string) {
		latch := s.client().NewCountDownLatch(name)
		if _, err := latch.TrySetCount(ctx, 1); err != nil {
			t.Fatal(err)
		}
		waitOn(t, s, keys.LatchChannel(name), func(ctx context.Context) { _ = latch.Await(ctx) })
	},
	rlock.KindPermitSemaphore: func(ctx context.Context, t *testing.T, s server, name string) {
		pe := s.client().NewPermitExpirableSemaphore(name)
		if _, err := pe.TrySetPermits(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if _, err := pe.Acquire(ctx, time.Minute); err != nil {
			t.Fatal(err)
		}
	},
	// Per client, with two clients' counts of permits beside it.
	rlock.KindRateLimiter: func(ctx context.Context, t *testing.T, s server, name string) {
		a, b := s.client(), s.client()
		if err := a.NewRateLimiter(name).SetRate(ctx, rlock.Rate{Limit: 5, Interval: time.Minute, PerClient: true}); err != nil {
			t.Fatal(err)
		}
		take(ctx, t, name, map[*rlock.Client]int{a: 1, b: 2})
	},
	rlock.KindCount: func(ctx context.Context, t *testing.T, s server, name string) {
		if err := s.rdb.IncrBy(ctx, name, 7).Err(); err != nil {
			t.Fatal(err)
		}
	},
}

// waitOn runs wait in a goroutine until the test ends, once a subscriber
// listens on channel.
func waitOn(t *testing.T, s server, channel string, wait func(ctx context.Context)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	testkit.Eventually(t, 5*time.Second, "a waiter on "+channel, func() bool {
		return testkit.Subscribers(context.Background(), s.rdb, channel) == 1
	})
}

// declaredKinds returns the values of the constants of type Kind that
// package rlock's source declares.
func declaredKinds(t *testing.T) []rlock.Kind {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join("..", "..", "rlock", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []rlock.Kind
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				if typ, ok := vs.Type.(*ast.Ident); !ok || typ.Name != "Kind" {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: a Kind constant that is not a string literal", fset.Position(v.Pos()))
					}
					k, _ := strconv.Unquote(lit.Value)
					kinds = append(kinds, rlock.Kind(k))
				}
			}
		}
	}
	if len(kinds) < 11 || !slices.Contains(kinds, rlock.KindRateLimiter) {
		t.Fatalf("read the Kind constants %q from rlock's source: some are missing", kinds)
	}
	return kinds
}
