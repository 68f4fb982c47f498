package settle

import "github.com/casper-chronicle/chronicle/engine"

// Evaluate answers question over s: a question starting with "@claim<TAB>"
// is a literal claim (*Claim, or an error wrapping ErrClaimSyntax), any other
// string — including the empty one — a debt-settlement question
// (*Settlement).
func Evaluate(s *engine.Store, question string) (Result, error) {
	if IsClaim(question) {
		c, err := EvaluateClaim(s, question)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	st, err := EvaluateSettlement(s, question)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Query returns the canonical result JSON (CONTRACT 5.1/5.2, no trailing
// newline) for question over s: the bytes the query command prints and its
// receipt hashes.
func Query(s *engine.Store, question string) ([]byte, error) {
	r, err := Evaluate(s, question)
	if err != nil {
		return nil, err
	}
	return r.JSON(), nil
}
