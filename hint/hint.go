// Package hint is an error together with what the user can do about it. Any package returns one; doctor reads the
// hint with errors.As and prints it as the fix, and the command line prints it under the error.
package hint

import "errors"

// Fix is an error and the step that fixes it, e.g. "apt-get install gcc libc6-dev".
type Fix struct {
	Err  error
	Hint string
}

// With returns err with hint attached, or nil when err is nil.
func With(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &Fix{Err: err, Hint: hint}
}

// Error is the error's text, then the hint on a line of its own.
func (f *Fix) Error() string {
	if f.Hint == "" {
		return f.Err.Error()
	}
	return f.Err.Error() + "\nhint: " + f.Hint
}

// Unwrap returns the error without the hint.
func (f *Fix) Unwrap() error { return f.Err }

// Of returns the hint of the first Fix in err's chain, or "".
func Of(err error) string {
	var f *Fix
	if errors.As(err, &f) {
		return f.Hint
	}
	return ""
}
