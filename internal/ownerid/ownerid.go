// Package ownerid hands out lock owner ids of the form "<client UUID>:<seq>".
//
// The UUID is random (version 4), so owner ids are unguessable and unique
// across processes; seq counts owners within one client from 1.
package ownerid

import (
	"strconv"
	"sync/atomic"

	"github.com/google/uuid"
)

// Source issues owner ids for one client. It is safe for concurrent use.
type Source struct {
	client string
	seq    atomic.Uint64
}

// NewSource returns a Source with a fresh random client id.
func NewSource() *Source {
	return &Source{client: uuid.NewString()}
}

// Client is the client id shared by every owner id of this Source.
func (s *Source) Client() string { return s.client }

// Next returns a new owner id, never returned before by this Source.
func (s *Source) Next() string {
	return s.client + ":" + strconv.FormatUint(s.seq.Add(1), 10)
}
