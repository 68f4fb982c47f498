package db

import (
	"context"
	"errors"
	"fmt"
)

// ErrInterrupted: the caller's context was canceled (Ctrl-C, a deadline)
// and a long operation (a batch ingest, check, reindex, an import of
// stores) ended at a document boundary; what was done so far stands.
var ErrInterrupted = errors.New("interrupted")

// interruption is ErrInterrupted with why the context ended, so that a
// caller can tell Ctrl-C (context.Canceled) from a deadline
// (context.DeadlineExceeded) with errors.Is; its text is the operation's
// own, which the front-ends print as it is.
type interruption struct {
	msg   string
	cause error
}

func (e *interruption) Error() string   { return e.msg }
func (e *interruption) Unwrap() []error { return []error{ErrInterrupted, e.cause} }

// Interrupted is the error of an operation that ctx ended, with the text
// format says (which names the interruption: "check interrupted after
// ..."); it is errors.Is ErrInterrupted and the context's cause. It is
// nil while ctx is live, so a loop asks it at each document boundary.
func Interrupted(ctx context.Context, format string, args ...any) error {
	if ctx.Err() == nil {
		return nil
	}
	return &interruption{msg: fmt.Sprintf(format, args...), cause: context.Cause(ctx)}
}
