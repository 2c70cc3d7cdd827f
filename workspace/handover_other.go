//go:build !unix

package workspace

import "errors"

// HandOver cannot run another program in place of this process on this
// system (agentlock refuses to run here anyway).
func HandOver(p Process, _ []byte) error {
	if etcdProgram(p.Env) == "" {
		return nil
	}
	return errors.New("handing a command over to " + EtcdProgram + " is not supported on this system")
}
