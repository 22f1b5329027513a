package redistest

import "fmt"

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
// first if it still runs): on its port, with its first options, empty.
// A former master that KillMaster killed comes back as a master of
// nothing, until the Sentinels make it a replica of the master they
// elected. It must not run concurrently with Close.
func (s *Sentinel) RestartNode(addr string) error {
	d, err := s.node(addr)
	if err != nil {
		return err
	}
	return d.Restart()
}
