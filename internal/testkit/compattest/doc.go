// Package compattest holds the tests that agentlock and agent-registry 0.2
// work together: real agentlock processes and real python3 processes
// running testdata/agent_registry_02.py — a re-implementation of 0.2's
// registry and lock writer that follows 0.2's behaviour (types, key order,
// defaults, the registry.md.lock flock) — on the same registry and lock
// folder, one after the other and racing behind a shared barrier.
//
// Every child process gets an environment the test builds and a deadline;
// racers go through the child command (./child) for both. Without python3
// or PyYAML, the tests skip and say so.
package compattest
