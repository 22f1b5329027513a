package redisstats

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Commands the benchmark's own bookkeeping sends, left out of ServerCalls.
var bookkeeping = map[string]bool{"info": true, "config|resetstat": true, "config": true, "ping": true, "flushall": true, "memory|usage": true}

// Calls is the number of times the server ran each command, by lower-case
// name ("evalsha", "publish", ...), including commands run inside scripts.
type Calls map[string]int64

// CommandCalls reads INFO commandstats.
func CommandCalls(ctx context.Context, rdb redis.UniversalClient) (Calls, error) {
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, err
	}
	calls := make(Calls)
	for name, rest := range infoFields(info) {
		name, ok := strings.CutPrefix(name, "cmdstat_")
		if !ok {
			continue
		}
		for _, field := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(field, "calls="); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("commandstats %s: %w", name, err)
				}
				calls[name] = n
			}
		}
	}
	return calls, nil
}

// Sub returns the calls made between o and c.
func (c Calls) Sub(o Calls) Calls {
	d := make(Calls)
	for k, v := range c {
		if n := v - o[k]; n != 0 {
			d[k] = n
		}
	}
	return d
}

// Total is the number of commands run, bookkeeping (INFO, PING, ...) excluded.
func (c Calls) Total() int64 {
	var n int64
	for k, v := range c {
		if !bookkeeping[k] {
			n += v
		}
	}
	return n
}

// PubSub is the number of SUBSCRIBE and UNSUBSCRIBE commands.
func (c Calls) PubSub() int64 {
	return c["subscribe"] + c["unsubscribe"] + c["ssubscribe"] + c["sunsubscribe"]
}

// Info reads the numeric fields of the given INFO sections (for example
// "clients", "memory", "stats"), by field name.
func Info(ctx context.Context, rdb redis.UniversalClient, sections ...string) (map[string]float64, error) {
	info, err := rdb.Info(ctx, sections...).Result()
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64)
	for name, v := range infoFields(info) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			out[name] = f
		}
	}
	return out, nil
}

// infoFields returns the name:value lines of an INFO reply.
func infoFields(info string) map[string]string {
	out := make(map[string]string)
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		if name, v, ok := strings.Cut(line, ":"); ok {
			out[name] = v
		}
	}
	return out
}
