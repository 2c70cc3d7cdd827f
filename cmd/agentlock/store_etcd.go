//go:build etcd

package main

// etcdBuild is true in the build that links the etcd store.
const etcdBuild = true

// delegate runs nothing in the etcd build: it is the build the default one
// hands over to.
func delegate([]string) {}

// hookHandOver does nothing in the etcd build: it has the etcd store.
func hookHandOver(*config, []string, []byte) {}

// haveEtcdBuild is true: this is the etcd build.
func haveEtcdBuild() bool { return true }
