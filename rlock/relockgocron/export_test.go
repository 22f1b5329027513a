package relockgocron

// withChanged has f called at every change of the Elector's state
// (leading or not).
func withChanged(f func()) ElectorOption {
	return func(e *Elector) error {
		e.changed = f
		return nil
	}
}
