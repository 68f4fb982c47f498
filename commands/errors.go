package commands

// ArgError is an error about one argument of a command: Object names what
// the argument is ("document"), Value the argument as given. The CLI's
// JSON error names it (`"document": VALUE`); other front-ends show Err.
type ArgError struct {
	Object, Value string
	Err           error
}

func (e *ArgError) Error() string { return e.Err.Error() }
func (e *ArgError) Unwrap() error { return e.Err }
