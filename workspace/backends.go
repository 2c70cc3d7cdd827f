package workspace

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentlock/agentlock/store"
)

// Backends are the stores a build can open besides the lock files, by the
// scheme of a store URL ("etcd"): the one place where a project's store
// setting picks its backend. One Backends serves every workspace of an
// invocation, so that they share connections; Close it at the end.
type Backends struct {
	mu      sync.Mutex
	linked  map[string]store.Backend
	missing map[string]bool // schemes asked for that this build lacks
}

// NewBackends returns the backends this build links (see linked): etcd in
// the build with the tag etcd, none otherwise.
func NewBackends() *Backends {
	return &Backends{linked: linked(), missing: map[string]bool{}}
}

// knownSchemes are the schemes of every backend agentlock has, linked in
// this build or not.
var knownSchemes = []string{"file", "etcd"}

// open opens the stores of spec's scheme for a checkout; an error matching
// ErrNoRemote for a known backend this build does not link.
func (b *Backends) open(spec StoreSpec, co store.Checkout) (store.Locks, store.Document, error) {
	scheme := spec.Scheme()
	var be store.Backend
	if b != nil {
		b.mu.Lock()
		be = b.linked[scheme]
		if be == nil {
			b.missing[scheme] = true
		}
		b.mu.Unlock()
	}
	switch {
	case be != nil:
		return be.Open(spec, co)
	case scheme == "etcd":
		return nil, nil, ErrNoRemote
	}
	return nil, nil, fmt.Errorf("store %q: %w %q (known: %s)", spec.URL, ErrUnknownScheme, scheme, strings.Join(knownSchemes, ", "))
}

// Missing reports whether a workspace needed the backend of scheme, which
// this build does not link: the command may be handed over to a build
// that does (agentlock-etcd).
func (b *Backends) Missing(scheme string) bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.missing[scheme]
}

// Close closes every backend's connections.
func (b *Backends) Close() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	names := make([]string, 0, len(b.linked))
	for name := range b.linked {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		if err := b.linked[name].Close(); err != nil {
			errs = append(errs, fmt.Errorf("close the %s store: %w", name, err))
		}
	}
	return errors.Join(errs...)
}
