package harness

// ManyLocksResult is what a ManyLocks run cost while the waiters waited,
// and how the releases drained.
type ManyLocksResult struct {
	Strategy string `json:"strategy"`
	Locks    int    `json:"locks"`
	Waiters  int    `json:"waiters"`
	Clients  int    `json:"clients"`
	// Settle is how long the waiters took to block (subscriptions confirmed).
	SettleSeconds float64 `json:"settle_seconds"`
	// Channels and Subscriptions are the server's pub/sub channels and
	// subscriber count (INFO pubsub_channels, PUBSUB NUMSUB sum) while waiting.
	Channels      int64 `json:"pubsub_channels"`
	Subscriptions int64 `json:"subscriptions"`
	// Connections is connected_clients while waiting (bookkeeping included).
	Connections int64 `json:"connections"`
	// Idle command rates while every lock is held.
	IdleClientCmdsPerSec float64 `json:"idle_client_commands_per_second"`
	IdleServerCmdsPerSec float64 `json:"idle_server_commands_per_second"`
	// Memory deltas from before the locks were taken.
	ServerMemMiB float64 `json:"server_used_memory_delta_mib"`
	GoHeapMiB    float64 `json:"go_heap_delta_mib"`
	// Memory per held lock (taken, before any waiter) and per waiter
	// (what the waiters added), in Redis and in this process's heap.
	ServerBytesPerLock   float64 `json:"server_bytes_per_lock"`
	GoBytesPerLock       float64 `json:"go_heap_bytes_per_lock"`
	ServerBytesPerWaiter float64 `json:"server_bytes_per_waiter"`
	GoBytesPerWaiter     float64 `json:"go_heap_bytes_per_waiter"`
	// GoStackBytesPerWaiter is what the waiters added to the goroutine
	// stacks in use: each waits in a goroutine of its own.
	GoStackBytesPerWaiter float64 `json:"go_stack_bytes_per_waiter"`
	// Replacements is how many subscription connections the Clients
	// replaced over the run (when counted: ManyLocks.Replaced).
	Replacements int64 `json:"replacements"`
	Goroutines   int   `json:"goroutines"`
	// Drain is from releasing every lock until every waiter locked and
	// unlocked once; with its commands per acquisition.
	DrainSeconds       float64 `json:"drain_seconds"`
	DrainClientCmdsPer float64 `json:"drain_client_commands_per_acquisition"`
	DrainServerCmdsPer float64 `json:"drain_server_commands_per_acquisition"`
	// Settle and Drain are where each phase's time went.
	Settle    Phase `json:"settle"`
	Drain     Phase `json:"drain"`
	Acquired  int64 `json:"acquired"`
	Published int64 `json:"published"`
	// ChannelsPerSubscribe is the channels (presence markers included) a
	// SUBSCRIBE command carried on average at settle; WokenPerMessage the
	// waiters a release message woke on average at drain, over every
	// Client; AttemptsPerAcquisition the acquire scripts each waiter ran.
	ChannelsPerSubscribe   float64 `json:"channels_per_subscribe"`
	WokenPerMessage        float64 `json:"woken_per_message"`
	AttemptsPerAcquisition float64 `json:"attempts_per_acquisition"`
	Errors                 int64   `json:"errors"`
	FirstError             string  `json:"first_error,omitempty"`
	// FirstReplacement is why the first connection replaced was.
	FirstReplacement string `json:"first_replacement,omitempty"`
	// Masters are a Cluster's masters' shares of the locks and of the
	// servers' CPU time.
	Masters []MasterCost `json:"masters,omitempty"`
	// JavaNames locks had JavaThreads Redisson threads each among their
	// waiters, which made JavaAcquired acquisitions; their errors count
	// in Errors.
	JavaNames    int   `json:"java_names,omitempty"`
	JavaThreads  int   `json:"java_threads,omitempty"`
	JavaAcquired int64 `json:"java_acquired,omitempty"`
}
