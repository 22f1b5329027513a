package keys

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
