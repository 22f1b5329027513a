//go:build !linux

package fleet

import "syscall"

// sysProcAttr: only Linux can tie a worker's life to the harness's.
func sysProcAttr() *syscall.SysProcAttr { return nil }
