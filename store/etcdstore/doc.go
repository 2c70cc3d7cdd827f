// Package etcdstore is agentlock's store on etcd v3, for teams whose agents
// run on several machines: the lock records and the registry of a project
// live in one etcd cluster instead of its .agent-registry folder.
//
// Keys, under a prefix of the user's choice:
//
//	<prefix>/locks/<repo>/<path>     a lock: "session|stamp|writer's real path", attached to the owner's lease
//	<prefix>/last/<repo>/<path>      the same record without a lease: who held an expired lock
//	<prefix>/leases/<repo>/<session>/<ttl>  "lease id|last keep-alive (µs)" of the session's
//	                                      locks in repo at that timeout (seconds), attached
//	                                      to that lease
//	<prefix>/queue/<repo>/<lease>    a waiter's place in line: "session\nsince (µs)\npath...",
//	                                      attached to the waiter's own short lease; the
//	                                      key's creation revision orders the line (queue.go)
//	<prefix>/registry/<repo>/s/<session>  the registry: one session's entry ("#<n>" and its
//	                                      frontmatter), written by compare-and-swap on its own
//	<prefix>/registry/<repo>/head    the rest of registry.md's frontmatter (version, last_updated)
//	<prefix>/sessions/<repo>         older versions' registry, registry.md whole: read while
//	                                      there is no head key, split by the first write
//
// <repo> is the repository's id (configured, or its normalised origin URL)
// escaped so that it holds no '/'; <path> is the path relative to the
// checkout's root, so that two checkouts of one repository at different
// places ("two machines") contend for the same keys.
//
// Each session's locks are attached to one etcd lease of the timeout's
// length: renewing a lock keeps that lease alive (so renewing one lock of a
// session renews them all), and a session that stops renewing loses every
// lock when the lease expires. The lease, not a clock, decides: a lock
// whose key is alive is fresh whatever its stamp says, and a lock whose key
// expired is stale, its owner still known from the <prefix>/last/ record.
// The machine that uses a session's leases remembers them (memory.go), so
// that renewing the session is one keep-alive round trip.
//
// The package is built only with the build tag etcd (go build -tags etcd):
// linking the etcd client costs every agentlock process start-up time, and
// every hook runs one.
package etcdstore
