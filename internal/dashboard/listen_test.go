package dashboard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPageURL(t *testing.T) {
	assert.Equal(t, "http://127.0.0.1:7420/", PageURL("127.0.0.1:7420", ""))
	assert.Equal(t, "http://localhost:7420/?token=a+b%26c", PageURL("0.0.0.0:7420", "a b&c"))
	assert.Equal(t, "http://localhost:7420/", PageURL("[::]:7420", ""))
	assert.Equal(t, "http://[::1]:7420/", PageURL("[::1]:7420", ""))
}

func TestListenSaysThePortIsTaken(t *testing.T) {
	ln, err := Listen("127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	_, err = Listen(ln.Addr().String())
	assert.EqualError(t, err, "cannot serve on "+ln.Addr().String()+": the port is taken by another program (another agentlock serve?); choose another with --addr host:port")
	_, err = Listen("127.0.0.1:notaport")
	assert.ErrorContains(t, err, "cannot serve on 127.0.0.1:notaport: ")
}
