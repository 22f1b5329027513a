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
var bookkeeping = map[string]bool{"info": true, "config|resetstat": true, "config": true, "ping": true, "flushall": true, "memory|usage": true,
	"cluster|info": true, "cluster|slots": true, "client|list": true}

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
	return numericFields(info), nil
}

// ClusterInfo reads the numeric fields of a cluster node's CLUSTER INFO,
// by field name: cluster_stats_messages_publish_sent and the like (Redis
// leaves out the counters of message types never sent or received).
func ClusterInfo(ctx context.Context, node *redis.Client) (map[string]float64, error) {
	info, err := node.ClusterInfo(ctx).Result()
	if err != nil {
		return nil, err
	}
	return numericFields(info), nil
}

// SubscribedConnections counts the server's client connections that
// subscribe to at least one channel, pattern or shard channel (the sub,
// psub and ssub fields of CLIENT LIST).
func SubscribedConnections(ctx context.Context, rdb *redis.Client) (int, error) {
	list, err := rdb.ClientList(ctx).Result()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, line := range strings.Split(list, "\n") {
		for _, field := range strings.Fields(line) {
			name, v, _ := strings.Cut(field, "=")
			if (name == "sub" || name == "psub" || name == "ssub") && v != "0" {
				n++
				break
			}
		}
	}
	return n, nil
}

// numericFields returns the name:value lines of an INFO-style reply whose
// values are numbers.
func numericFields(info string) map[string]float64 {
	out := make(map[string]float64)
	for name, v := range infoFields(info) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			out[name] = f
		}
	}
	return out
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

// Time is what the server spent running one command: its calls and the
// microseconds they took, a script's including the commands it ran.
type Time struct {
	Calls, Usec int64
}

// CommandTimes reads INFO commandstats: each command's calls and time, by
// lower-case name.
func CommandTimes(ctx context.Context, rdb redis.UniversalClient) (map[string]Time, error) {
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, err
	}
	times := make(map[string]Time)
	for name, rest := range infoFields(info) {
		name, ok := strings.CutPrefix(name, "cmdstat_")
		if !ok {
			continue
		}
		var t Time
		for _, field := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(field, "=")
			n, err := strconv.ParseInt(v, 10, 64)
			switch {
			case k != "calls" && k != "usec":
				continue
			case err != nil:
				return nil, fmt.Errorf("commandstats %s: %w", name, err)
			case k == "calls":
				t.Calls = n
			default:
				t.Usec = n
			}
		}
		times[name] = t
	}
	return times, nil
}
