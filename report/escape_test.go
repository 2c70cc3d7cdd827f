package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"src/a.go", "src/a.go"},
		{"é/ü.txt", "é/ü.txt"},
		{"a\nb\rc\td", `a\nb\rc\td`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"bell\a del\x7f", `bell\a del\x7f`},
		{"c1 \u0085", `c1 \u0085`},
		{"bad \xff byte", `bad \xff byte`},
		{`already \x1b`, `already \x1b`},
		{"rlo \u202egnp.go", `rlo \u202egnp.go`},
		{"isolates \u2066a\u2069 \u2067b\u2068", `isolates \u2066a\u2069 \u2067b\u2068`},
		{"marks \u200e\u200f\u061c", `marks \u200e\u200f\u061c`},
		{"lines \u2028\u2029", `lines \u2028\u2029`},
		{"emoji 👩‍💻 kept", "emoji 👩‍💻 kept"},
	} {
		assert.Equal(t, tc.want, Escape(tc.in), "%q", tc.in)
		assert.Equal(t, tc.want, Escape(Escape(tc.in)), "idempotent: %q", tc.in)
	}
	assert.Equal(t, "a\\x1b\nb", EscapeLines("a\x1b\nb"))
	assert.Equal(t, `x \x1b 3`, Linef("x %s %d", "\x1b", 3))
}
