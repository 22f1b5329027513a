package rlock

// callbacks are the functions to call, once and with the cause, when a
// hold or a MultiLock's set ends. The zero value holds none; the mutex of
// what ends guards it. A hold has one or two (the watchdog's, a
// Context's), so a slice serves: adding one allocates little, and
// removing one is a few comparisons.
type callbacks struct {
	fs     []callback
	nextID uint64
}

// callback is one function of callbacks, with the id that removes it.
type callback struct {
	id uint64
	f  func(error)
}

// add records f and returns the id that removes it.
func (cs *callbacks) add(f func(error)) uint64 {
	id := cs.nextID
	cs.nextID++
	cs.fs = append(cs.fs, callback{id: id, f: f})
	return id
}

// remove forgets the function added with id, if it is still recorded.
func (cs *callbacks) remove(id uint64) {
	for i, c := range cs.fs {
		if c.id == id {
			cs.fs = append(cs.fs[:i], cs.fs[i+1:]...)
			return
		}
	}
}

// take returns the functions recorded, in the order they were added, and
// forgets them all.
func (cs *callbacks) take() []callback {
	fs := cs.fs
	cs.fs = nil
	return fs
}
