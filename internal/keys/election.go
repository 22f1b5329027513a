package keys

// Election is the record of the leader election name: a hash of its
// current state (relock's own; Redisson has no elections). The election's
// term is the fair lock name itself, its token the fenced lock's counter
// (Token); scripts/election_common.lua describes the fields.
func Election(name string) string { return prefixName("relock_election", name) }

// ElectionLog is the log of the leader election name: a stream of its
// changes, each entry the state the change left, as the record has it.
func ElectionLog(name string) string { return prefixName("relock_election_log", name) }

// ElectionChannel is the channel on which every change of the leader
// election name is announced, with the message ReadUnlockMessage ("1"),
// which wakes every listener of a Client: its observers all read the log.
func ElectionChannel(name string) string { return prefixName("relock_leader", name) }
