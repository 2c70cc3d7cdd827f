package doctor

import (
	"fmt"
	"io"

	"github.com/agentlock/agentlock/report"
)

// WriteCheck prints one check for people: its verdict and name, what was
// found (escaped), and on the next line what to do.
func WriteCheck(w io.Writer, ch Check) error {
	if _, err := fmt.Fprintf(w, "%-8s %s: %s\n", ch.Status, ch.Name, report.Escape(ch.Detail)); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if ch.Fix != "" {
		if _, err := fmt.Fprintf(w, "%-8s fix: %s\n", "", report.Escape(ch.Fix)); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	return nil
}
