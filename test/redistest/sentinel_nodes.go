package redistest

import (
	"fmt"
	"net"
)

// node returns the data node listening on addr.
func (s *Sentinel) node(addr string) (*Server, error) {
	for _, d := range s.data {
		if d.Addr == addr {
			return d, nil
		}
	}
	return nil, fmt.Errorf("%s is none of the started data nodes", addr)
}

// RestartNode starts the data node at addr again, as Restart does (killed
// first if it still runs): on its port, with its first options, empty, as
// a replica of master (host:port), so that it never serves as a master of
// nothing. (A master without persistence restarted as a master loses
// every write: clients that have not heard of the failover write to it
// until the Sentinels demote it, and a replica not yet promoted syncs the
// empty dataset.) It must not run concurrently with Close.
func (s *Sentinel) RestartNode(addr, master string) error {
	d, err := s.node(addr)
	if err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(master)
	if err != nil {
		return err
	}
	return d.restart("--replicaof", host, port)
}
