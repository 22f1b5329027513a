package keys

import "strings"

// A rate limiter named name is Redisson's RRateLimiter: its config is the
// hash name itself (fields rate, interval, type, keepAliveTime), and
// beside it, in its slot, the string of available permits (RateValue) and
// the sorted set of permits taken (RatePermits). A limiter whose rate is
// per client keeps a pair of each client's own (RateClient).

// RateValue is the rate limiter name's count of available permits,
// Redisson's "{name}:value".
func RateValue(name string) string { return suffixName(name, "value") }

// RatePermits is the rate limiter name's sorted set of the permits taken
// within the last interval, Redisson's "{name}:permits": a member per
// acquisition, scored with the acquirer's clock in epoch milliseconds.
func RatePermits(name string) string { return suffixName(name, "permits") }

// RateClient is a per-client limiter's key of the client called client:
// key (RateValue or RatePermits) followed by ":" and the client id, in
// key's slot.
func RateClient(key, client string) string { return suffixName(key, client) }

// RateNames returns the names of the rate limiters whose count of
// available permits key may be: RateValue(n), or a client's
// RateClient(RateValue(n), id). The layout makes some keys ambiguous
// ("{a}:value" is RateValue of both "a" and "{a}"), so it returns every
// name that fits, and none for a key of no limiter.
func RateNames(key string) []string {
	const value = ":value"
	var names []string
	if base, ok := strings.CutSuffix(key, value); ok {
		names = append(names, suffixNames(base)...)
	}
	// A client's key: RateValue(n) + ":" + id; RateValue(n) may itself
	// hold ":value:".
	for i := 0; ; i++ {
		j := strings.Index(key[i:], value+":")
		if j < 0 {
			return names
		}
		i += j
		if i+len(value)+1 < len(key) {
			names = append(names, suffixNames(key[:i])...)
		}
	}
}

// suffixNames returns the names n whose suffixName(n, s) is base + ":" + s
// for any s: "{n}" braced, or n itself when it holds a "{".
func suffixNames(base string) []string {
	var names []string
	if inner, ok := strings.CutPrefix(base, "{"); ok {
		if inner, ok := strings.CutSuffix(inner, "}"); ok && !strings.Contains(inner, "{") {
			names = append(names, inner)
		}
	}
	if strings.Contains(base, "{") {
		names = append(names, base)
	}
	return names
}
