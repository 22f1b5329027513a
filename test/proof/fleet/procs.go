package fleet

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/relock-go/relock/test/faultproxy"
)

// proc is one worker process of the fleet, and the proxies through which
// it reaches the lock services.
type proc struct {
	name, side string
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	proxies    []*faultproxy.Proxy
	ready      chan struct{} // closed when the worker printed "ready"
	exited     chan struct{} // closed once the process was reaped
	err        error         // cmd.Wait's, once exited is closed
	log        *os.File
	started    time.Time
}

// readyTimeout bounds a worker's start: a JVM on a loaded machine takes a
// few seconds to load Redisson and connect.
const readyTimeout = time.Minute

// stopTimeout bounds a worker's stop after SIGTERM: its loops finish the
// iteration they are in, whose waits end within the acquisition's wait.
const stopTimeout = 30 * time.Second

// launch starts the command argv as proc p, its stderr and every stdout
// line but "ready" in its log file, and returns at once; p.ready closes
// when it printed "ready", p.exited when it has been reaped.
func (p *proc) launch(dir string, argv []string) error {
	log, err := os.Create(filepath.Join(dir, "logs", p.name+".log"))
	if err != nil {
		return err
	}
	p.log = log
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Stderr = log
	p.cmd.SysProcAttr = sysProcAttr()
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return err
	}
	if err := p.cmd.Start(); err != nil {
		return err
	}
	p.started = time.Now()
	p.ready, p.exited = make(chan struct{}), make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		signalled := false
		for sc.Scan() {
			if line := sc.Text(); line == "ready" && !signalled {
				close(p.ready)
				signalled = true
			} else {
				fmt.Fprintln(log, line)
			}
		}
		p.err = p.cmd.Wait() // only once stdout is read to its end
		_ = log.Close()
		close(p.exited)
	}()
	return nil
}

// awaitReady waits until p printed "ready", failing if it exits first or
// takes longer than readyTimeout.
func (p *proc) awaitReady() error {
	t := time.NewTimer(readyTimeout)
	defer t.Stop()
	select {
	case <-p.ready:
		return nil
	case <-p.exited:
		return fmt.Errorf("%s exited before it was ready (%v): see logs/%s.log", p.name, p.err, p.name)
	case <-t.C:
		return fmt.Errorf("%s not ready after %v", p.name, readyTimeout)
	}
}

// start tells p, once ready, to start on the run's objects.
func (p *proc) start() error {
	_, err := io.WriteString(p.stdin, "go\n")
	return err
}

// alive reports whether p has not exited.
func (p *proc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// signal sends sig to p, if it is still running.
func (p *proc) signal(sig syscall.Signal) error {
	if !p.alive() {
		return fmt.Errorf("%s has exited", p.name)
	}
	err := p.cmd.Process.Signal(sig)
	if errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%s has exited", p.name)
	}
	return err
}

// kill kills p with SIGKILL and returns once it has been reaped.
func (p *proc) kill() error {
	err := p.signal(syscall.SIGKILL)
	<-p.exited
	return err
}

// stop asks p to finish (SIGTERM, after SIGCONT in case it is paused) and
// waits for it, killing it after stopTimeout; it reports a worker that
// exited with an error of its own.
func (p *proc) stop() error {
	if !p.alive() {
		return nil
	}
	_ = p.signal(syscall.SIGCONT)
	_ = p.signal(syscall.SIGTERM)
	t := time.NewTimer(stopTimeout)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		_ = p.kill()
		return fmt.Errorf("%s did not stop within %v of SIGTERM: killed", p.name, stopTimeout)
	}
	var exit *exec.ExitError
	if errors.As(p.err, &exit) && exit.ExitCode() != 143 && !strings.Contains(exit.String(), "terminated") {
		return fmt.Errorf("%s: %w: see logs/%s.log", p.name, p.err, p.name)
	}
	return nil
}

// closeProxies closes p's proxies.
func (p *proc) closeProxies() error {
	var errs []error
	for _, px := range p.proxies {
		errs = append(errs, px.Close())
	}
	return errors.Join(errs...)
}
