//go:build unix

package redistest

import "syscall"

// StopNode stops the data node at addr (SIGSTOP): nobody hears from it,
// Sentinels and replicas included, until ContinueNode, as if it were cut
// off from everyone.
func (s *Sentinel) StopNode(addr string) error { return s.signalNode(addr, syscall.SIGSTOP) }

// ContinueNode continues the data node at addr after StopNode (SIGCONT).
func (s *Sentinel) ContinueNode(addr string) error { return s.signalNode(addr, syscall.SIGCONT) }

func (s *Sentinel) signalNode(addr string, sig syscall.Signal) error {
	d, err := s.node(addr)
	if err != nil {
		return err
	}
	return d.cmd.Process.Signal(sig)
}
