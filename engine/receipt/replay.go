package receipt

import (
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// Canonical replays results with the engine's canonical query (settlement
// or claim, CONTRACT 9/10) and find (CONTRACT 11): the Replayer every verifier uses.
type Canonical struct{}

// Query implements Replayer.
func (Canonical) Query(s *engine.Store, question string) ([]byte, error) {
	return settle.Query(s, question)
}

// Find implements Replayer.
func (Canonical) Find(s *engine.Store, terms string) ([]byte, error) {
	return find.Find(s, terms)
}
