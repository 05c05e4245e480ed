package publish

import (
	"errors"
	"maps"
	"time"
)

// Status returns a copy of the follower's status.
func (f *Follower) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.status
	s.Failures = maps.Clone(f.status.Failures)
	return s
}

// take makes b the current build and keeps it and the one before it in the cache; older builds
// go only now, after the swap, as the caller may have been serving the previous one until then.
// A fallback (a cached build taken because the store failed) leaves the state failing.
func (f *Follower) take(b Build, fallback bool) {
	f.update(func(s *Status) {
		if s.Current.SHA256 != "" && s.Current.SHA256 != b.Manifest.SHA256 {
			f.previous = s.Current.SHA256
		}
		s.Current, s.CurrentPath, s.SwappedAt = b.Manifest, b.Path, time.Now()
		s.State = StateCurrent
		if fallback {
			s.State = StateFailing
		}
	})
	keep := []string{b.Manifest.SHA256}
	if f.previous != "" {
		keep = append(keep, f.previous)
	}
	if err := prune(f.dir, keep...); err != nil {
		f.fail(&FollowError{FailDisk, err})
	}
}

// ok records a check that found the current build still current.
func (f *Follower) ok() {
	f.update(func(s *Status) {
		if s.State == StateFailing {
			s.State = StateCurrent
		}
	})
}

// fail records a failed check; the current build, if any, stays.
func (f *Follower) fail(err error) {
	kind := FailUnreachable // an error that is no FollowError is the store's or the context's
	var fe *FollowError
	if errors.As(err, &fe) {
		kind = fe.Kind
	}
	f.update(func(s *Status) {
		if s.State != StateStarting {
			s.State = StateFailing
		}
		s.LastError, s.LastErrorKind, s.LastErrorAt = err.Error(), kind, time.Now()
		s.Failures[kind]++
	})
}

// update applies change, counts a change of state (state, failure kind or build) and reports it.
func (f *Follower) update(change func(*Status)) {
	f.mu.Lock()
	before := f.status
	f.status.LastCheckAt = time.Now()
	change(&f.status)
	s := &f.status
	changed := s.State != before.State || s.Current.SHA256 != before.Current.SHA256 ||
		(s.State != StateCurrent && s.LastErrorKind != before.LastErrorKind)
	if changed {
		s.Seq++
	}
	snapshot := *s
	snapshot.Failures = maps.Clone(s.Failures)
	f.mu.Unlock()
	if changed && f.cfg.OnStateChange != nil {
		f.cfg.OnStateChange(snapshot)
	}
}
