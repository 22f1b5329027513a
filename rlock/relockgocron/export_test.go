package relockgocron

// withChanged has f called at every state the Elector records: each
// confirmation, each start and end of leading.
func withChanged(f func()) ElectorOption {
	return func(e *Elector) error {
		e.changed = f
		return nil
	}
}
