package debuglocks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/rlock/debuglocks"
)

func Example() {
	mr, _ := miniredis.Run() // any Redis
	defer mr.Close()
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	locks, err := rlock.New(rdb)
	if err != nil {
		panic(err)
	}
	defer locks.Close()

	// Mount the page on the process's internal mux, beside net/http/pprof,
	// never on a public listener: it shows lock names and owner ids.
	mux := http.NewServeMux()
	mux.Handle("/debug/locks", debuglocks.Handler(locks))
	// go http.ListenAndServe("localhost:6060", mux)

	ctx := context.Background()
	m := locks.NewMutex("orders:42")
	if err := m.Lock(ctx); err != nil {
		panic(err)
	}
	defer m.Unlock(ctx)

	// Browse to http://localhost:6060/debug/locks, or read it as JSON:
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/debug/locks?format=json")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var page struct {
		Activity struct {
			Holds []struct {
				Name     string `json:"name"`
				Count    int    `json:"count"`
				Watchdog bool   `json:"watchdog"`
			} `json:"holds"`
		} `json:"activity"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		panic(err)
	}
	for _, h := range page.Activity.Holds {
		fmt.Printf("%s held %d time(s), renewed by the watchdog: %v\n", h.Name, h.Count, h.Watchdog)
	}
	// Output:
	// orders:42 held 1 time(s), renewed by the watchdog: true
}
