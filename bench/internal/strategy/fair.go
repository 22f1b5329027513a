package strategy

import (
	"reflect"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

// Fair is relock's fair mode (Client.NewFairMutex), which grants the lock
// in request order. It reports false while the library does not have fair
// mode yet: the method is looked up at run time so that the suite builds
// either way.
func Fair() (Strategy, bool) {
	if _, ok := reflect.TypeOf((*rlock.Client)(nil)).MethodByName("NewFairMutex"); !ok {
		return Strategy{}, false
	}
	return Strategy{Name: "relock-fair", Family: "fair", Open: openFair}, true
}

func openFair(rdb *redis.Client) (Backend, error) {
	c, err := rlock.New(rdb)
	if err != nil {
		return nil, err
	}
	return fairBackend{c}, nil
}

type fairBackend struct{ c *rlock.Client }

func (b fairBackend) NewLocker(name string) Locker {
	out := reflect.ValueOf(b.c).MethodByName("NewFairMutex").Call([]reflect.Value{reflect.ValueOf(name)})
	return out[0].Interface().(Locker)
}

func (b fairBackend) Close() error { return b.c.Close() }
