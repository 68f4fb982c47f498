package db

// DocumentError is an error of Resolve (ErrUnknownDoc, ErrAmbiguousDoc or
// a damaged record): it names the DOC argument as given, for callers that
// report the object of an error (the CLI's JSON errors). Its text is its
// cause's.
type DocumentError struct {
	Arg string
	Err error
}

func (e *DocumentError) Error() string { return e.Err.Error() }
func (e *DocumentError) Unwrap() error { return e.Err }
