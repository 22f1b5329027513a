package fleet

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/relock-go/relock/test/faultproxy"
	"github.com/relock-go/relock/test/proof/nemesis"
	"github.com/relock-go/relock/test/proof/store"
	"github.com/relock-go/relock/test/redistest"
)

// ackKinds names an unplanned failover of the ack deployment, as the
// history records it.
var ackKinds = map[string]string{nemesis.KillMaster: nemesis.KillMasterAck, nemesis.CutMaster: nemesis.CutMasterAck}

// unplanned injects an unplanned failover (nemesis.KillMaster or
// nemesis.CutMaster) on every Sentinel deployment at once, each a span of
// its own on its namespace. The Sentinels elect the replica on their own,
// their down-after shortened for the span; the span lasts until the
// former master is the new one's replica in sync. Writes may have been
// lost: the namespace's workloads move to fresh objects.
func (f *fleet) unplanned(ctx context.Context, fault nemesis.Fault) error {
	namespaces := slices.Sorted(maps.Keys(f.svc.sentinels))
	errs := make([]error, len(namespaces))
	var wg sync.WaitGroup
	for i, ns := range namespaces {
		one := fault
		if ns == store.Ack {
			one.Kind = ackKinds[fault.Kind]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f.span(one, ns, func() error {
				d := f.svc.sentinels[ns]
				err := setDownAfter(ctx, d, redistest.SentinelDownAfter)
				switch {
				case err != nil:
				case fault.Kind == nemesis.KillMaster:
					err = killMaster(ctx, d)
				default:
					err = f.cutMaster(ctx, d, fault)
				}
				if err == nil {
					err = f.svc.awaitReplica(ctx, ns)
				}
				// Restored on a context of its own: a run ended early must
				// not leave Sentinels that fail masters over unseen.
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				defer cancel()
				if err := errors.Join(err, setDownAfter(rctx, d, downAfter)); err != nil {
					return err
				}
				return f.nextEpoch(ctx, ns, f.cfg.Workloads...)
			})
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// killMaster kills d's master, waits until the Sentinels elected the
// replica, and starts the killed server again, empty, as the new master's
// replica: a master without persistence must not come back as a master
// (redistest.Sentinel.RestartNode says why), and an operator who restarts
// one does it so.
func killMaster(ctx context.Context, d *redistest.Sentinel) error {
	old, err := d.KillMaster(ctx)
	if err != nil {
		return err
	}
	now, err := d.AwaitNewMaster(ctx, old)
	if err != nil {
		return err
	}
	return d.RestartNode(old, now)
}

// cutMaster cuts d's master off from every live process (their proxies
// to it stalled) and from its Sentinels and replica (stopped), until
// the Sentinels elected the replica and fault.Length more; then heals both
// at once.
func (f *fleet) cutMaster(ctx context.Context, d *redistest.Sentinel, fault nemesis.Fault) error {
	old, err := d.MasterAddr(ctx)
	if err != nil {
		return err
	}
	var cut []*faultproxy.Proxy
	for _, p := range f.live("") {
		for _, px := range p.proxies {
			if px.Target() == old {
				cut = append(cut, px)
			}
		}
	}
	for _, px := range cut {
		px.Stall(true)
	}
	err = d.StopNode(old)
	if err == nil {
		_, err = d.AwaitNewMaster(ctx, old)
		sleep(ctx, fault.Length)
	}
	err = errors.Join(err, d.ContinueNode(old))
	for _, px := range cut {
		px.Stall(false)
	}
	return err
}
