package fleet

import "syscall"

// sysProcAttr makes a worker die with the harness: were the harness killed,
// no worker would outlive it, holding locks and writing histories.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
