package rlock

import (
	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// leader is the leader of the election the sight found, once its pipeline
// has run: the term its record shows, if that term's owner is in the
// lock's hash; nil otherwise, and when there is no election.
func (s *sight) leader(hash map[string]string) *Leader {
	record := s.election.Val()
	if len(record) == 0 {
		return nil
	}
	c, err := scripts.RecordOf(record)
	if _, held := hash[c.Owner]; err != nil || !c.Leads() || !held {
		return nil
	}
	l := leaderOf(c)
	return &l
}

// electionChannels are the channels of a lock of kind k called name that
// only an election has: its own, where observers listen.
func electionChannels(k Kind, name string) []string {
	if k != KindElection {
		return nil
	}
	return []string{keys.ElectionChannel(name)}
}
