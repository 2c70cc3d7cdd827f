// Package etcdtest starts real etcd members for tests, in the test process
// (go.etcd.io/etcd/server/v3/embed), on loopback ports and in temporary
// folders. It is built only with the build tag etcd.
package etcdtest
