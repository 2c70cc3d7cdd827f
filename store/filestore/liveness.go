package filestore

import (
	"errors"
	"time"

	"github.com/agentlock/agentlock/store"
)

// timeout is the staleness timeout of the store's locks.
func (s *Locks) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return store.DefaultTimeout
}

// now is the store's clock.
func (s *Locks) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// judge gives each slot read the store's verdict on its freshness
// (store.Liveness), at one instant: a lock file's record lives on its
// stamp, fresh until the stamp plus the timeout, and content that cannot
// be decoded on the file's modification time (content nobody wrote for
// longer than the timeout is no live lock, whatever it holds; content
// written more recently may be a live lock damaged a moment ago). A free
// slot and one that could not be read get none.
func (s *Locks) judge(slots []store.Slot) {
	now := s.now()
	for i := range slots {
		slot := &slots[i]
		var corrupt *store.CorruptError
		switch {
		case slot.Err == nil && !slot.Record.Free():
			slot.Liveness = liveness(slot.Record.Stamp, now, s.timeout())
		case errors.As(slot.Err, &corrupt) && !slot.Written.IsZero():
			slot.Liveness = liveness(slot.Written, now, s.timeout())
		}
	}
}

// liveness judges a record last written at stamp, at now. A stamp further
// in the future than the timeout is stale too: no clock is that far off,
// so it is damage or a forgery, and trusting it would make a lock
// permanent (a stamp in 2100). A stamp slightly ahead — another machine's
// clock — counts as written now, and stays fresh until its own stamp plus
// the timeout; the time left (Until) is never more than the timeout from
// now.
func liveness(stamp, now time.Time, timeout time.Duration) *store.Liveness {
	age := now.Sub(stamp)
	return &store.Liveness{
		Fresh: age <= timeout && -age <= timeout,
		Until: now.Add(timeout - max(age, 0)),
	}
}
