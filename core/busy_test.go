package core

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBusy(t *testing.T) {
	assert.NoError(t, Busy(nil))
	corrupt := errors.New("corrupt record")
	assert.NoError(t, Busy([]error{corrupt}), "a corrupt record is the listing's to show")
	b1, b2 := fmt.Errorf("a.lock: %w", ErrBusy), fmt.Errorf("b.lock: %w", ErrBusy)
	err := Busy([]error{b1, corrupt, b2})
	assert.ErrorIs(t, err, ErrBusy)
	assert.Equal(t, "a.lock: "+ErrBusy.Error()+"\nb.lock: "+ErrBusy.Error(), err.Error())
}
