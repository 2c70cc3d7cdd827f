package core

import "errors"

// Busy returns, joined, the problems of a listing (Locker.List) that are
// records another process kept locked past the wait for its flock (each
// matching ErrBusy), nil when there is none: a corrupt record is the
// listing's to show, but a busy one means a process is stopped inside a
// critical section, which the caller must hear of.
func Busy(problems []error) error {
	var errs []error
	for _, p := range problems {
		if errors.Is(p, ErrBusy) {
			errs = append(errs, p)
		}
	}
	return errors.Join(errs...)
}
