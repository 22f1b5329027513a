package fleet

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/relock-go/relock/test/faultproxy"
	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/proof/nemesis"
	"github.com/relock-go/relock/test/proof/store"
)

// inject injects fault f and returns once it has healed, its span written
// to the nemesis's history: invoke when it begins, ok when it healed (info,
// with the error, when it could not be injected or healed).
func (f *fleet) inject(ctx context.Context, fault nemesis.Fault) error {
	switch fault.Kind {
	case nemesis.Partition, nemesis.Latency, nemesis.Reset:
		return f.network(ctx, fault)
	case nemesis.Pause:
		p := f.pick(fault)
		if p == nil {
			return nil
		}
		return f.span(fault, p.name, func() error {
			if err := p.signal(syscall.SIGSTOP); err != nil {
				return err
			}
			sleep(ctx, fault.Length)
			return p.signal(syscall.SIGCONT)
		})
	case nemesis.Kill:
		return f.kill(ctx, fault)
	case nemesis.RestartAlways, nemesis.RestartEverysec, nemesis.RestartNoPersist:
		mode := map[string]string{nemesis.RestartAlways: "always", nemesis.RestartEverysec: "everysec",
			nemesis.RestartNoPersist: "none"}[fault.Kind]
		return f.span(fault, store.Single, func() error {
			if err := f.svc.restart(ctx, mode); err != nil {
				return err
			}
			if mode != "none" {
				return nil
			}
			// What the empty server does to holders, waiters and tokens
			// shows within a lease or two; then the workloads move to fresh
			// objects, as users would start again from a known state.
			sleep(ctx, 2*f.cfg.Lease)
			return f.nextEpoch(ctx, store.Single, f.cfg.Workloads...)
		})
	case nemesis.Failover, nemesis.FailoverAck:
		ns := map[string]string{nemesis.Failover: store.NoAck, nemesis.FailoverAck: store.Ack}[fault.Kind]
		return f.span(fault, ns, func() error {
			// The span lasts until the former master is a replica in sync
			// of the new one: until then it may still take writes that the
			// demotion then drops. Writes may have been lost: the
			// workloads move to fresh objects.
			if err := f.svc.failover(ctx, ns); err != nil {
				return err
			}
			return f.nextEpoch(ctx, ns, f.cfg.Workloads...)
		})
	case nemesis.ScriptFlush:
		return f.span(fault, "", func() error { return f.svc.scriptFlush(ctx) })
	case nemesis.KillMaster, nemesis.CutMaster:
		return f.unplanned(ctx, fault)
	case nemesis.ClusterFailover:
		return f.span(fault, store.Cluster, func() error { return f.clusterFailover(ctx, fault) })
	case nemesis.SlotMigration:
		return f.span(fault, store.Cluster, func() error { return f.migrateSlot(ctx, fault) })
	}
	return fmt.Errorf("fleet: cannot inject %q", fault.Kind)
}

// span records a fault on target around do.
func (f *fleet) span(fault nemesis.Fault, target string, do func() error) error {
	f.cfg.logf("%s: %s on %q", time.Now().Format("15:04:05.000"), fault, target)
	o, err := f.hist.Invoke(history.Event{Op: "fault", Fault: fault.Kind, Target: target})
	if err != nil {
		return err
	}
	if err := do(); err != nil {
		f.cfg.logf("%s failed: %v", fault.Kind, err)
		return o.Done(history.Info, history.Event{Fault: fault.Kind, Target: target, Error: err.Error()})
	}
	return o.Done(history.OK, history.Event{Fault: fault.Kind, Target: target})
}

// pick returns the live process fault hits: of its side, chosen by its
// Pick; nil when that side has none.
func (f *fleet) pick(fault nemesis.Fault) *proc {
	ps := f.live(fault.Side)
	if len(ps) == 0 {
		return nil
	}
	return ps[fault.Pick%len(ps)]
}

// network injects a partition, latency or reset on one process's proxies,
// or on every process's.
func (f *fleet) network(ctx context.Context, fault nemesis.Fault) error {
	targets, target := f.live(""), ""
	if !fault.Everyone {
		if len(targets) == 0 {
			return nil
		}
		p := targets[fault.Pick%len(targets)]
		targets, target = []*proc{p}, p.name
	}
	var proxies []*faultproxy.Proxy
	for _, p := range targets {
		proxies = append(proxies, p.proxies...)
	}
	each := func(do func(*faultproxy.Proxy)) {
		for _, px := range proxies {
			do(px)
		}
	}
	return f.span(fault, target, func() error {
		switch fault.Kind {
		case nemesis.Reset:
			each((*faultproxy.Proxy).ResetAll)
		case nemesis.Partition:
			if fault.Refused {
				each(func(px *faultproxy.Proxy) { px.RefuseNew(true) })
				each((*faultproxy.Proxy).ResetAll)
				sleep(ctx, fault.Length)
				each(func(px *faultproxy.Proxy) { px.RefuseNew(false) })
				break
			}
			each(func(px *faultproxy.Proxy) { px.Stall(true) })
			sleep(ctx, fault.Length)
			if fault.Severed {
				each((*faultproxy.Proxy).ResetAll)
			}
			each(func(px *faultproxy.Proxy) { px.Stall(false) })
		case nemesis.Latency:
			each(func(px *faultproxy.Proxy) { px.SetLatency(fault.Delay) })
			sleep(ctx, fault.Length)
			each(func(px *faultproxy.Proxy) { px.SetLatency(0) })
		}
		return nil
	})
}

// kill kills a process with SIGKILL, takes its marks out of the sections
// once its last command has run, and starts another process of its side in
// its place, recording when it started (Spawn). (A plain semaphore's permit it held is gone for good:
// Redisson's semantics, which relock keeps; the semaphores move to fresh
// objects after every fault.)
func (f *fleet) kill(ctx context.Context, fault nemesis.Fault) error {
	p := f.pick(fault)
	if p == nil {
		return nil
	}
	f.cfg.logf("%s: %s on %q", time.Now().Format("15:04:05.000"), fault, p.name)
	err := p.kill()
	e := history.Event{Op: "fault", Fault: fault.Kind, Target: p.name}
	if err != nil {
		e.Error = err.Error()
	}
	if err := f.hist.Instant(e); err != nil {
		return err
	}
	if err := p.closeProxies(); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err = poll(wctx, func() error {
		on, err := store.Connected(wctx, f.svc.admin, p.name)
		if err == nil && on {
			err = fmt.Errorf("%s still connected to the resource", p.name)
		}
		return err
	})
	if err != nil {
		return err
	}
	if _, err := store.Forget(ctx, f.svc.admin, p.name); err != nil {
		return err
	}
	next, err := f.spawn(p.side)
	if err != nil {
		return err
	}
	if err := next.awaitReady(); err != nil {
		return err
	}
	if err := next.start(); err != nil {
		return err
	}
	return f.hist.Instant(history.Event{Op: "fault", Fault: nemesis.Spawn, Target: next.name})
}

// sleep waits d, or less if ctx ends first.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
