package report

import (
	"bytes"
	"fmt"
	"io"
)

// WriteStatus prints status's records: one JSON line each with asJSON,
// else for people (WriteStatusText).
func WriteStatus(w io.Writer, asJSON bool, records []Status, where, root string) error {
	if !asJSON {
		return WriteStatusText(w, records, where, root)
	}
	for _, r := range records {
		if err := WriteJSON(w, r); err != nil {
			return err
		}
	}
	return nil
}

// WriteStatusText prints status's records for people: the table
// (WriteStatusTable), or one line saying that where holds no locks.
func WriteStatusText(w io.Writer, records []Status, where, root string) error {
	if len(records) == 0 {
		_, err := fmt.Fprintf(w, "no locks in %s\n", Escape(where))
		return err
	}
	return WriteStatusTable(w, records, root)
}

// WatchFrame renders one screen of status --watch: a heading line with the
// counts of held and stale locks, a blank line, then WriteStatusText;
// every line within TableWidth columns.
func WatchFrame(records []Status, where, root string) ([]byte, error) {
	held, stale := 0, 0
	for _, r := range records {
		switch r.State {
		case "locked":
			held++
		case "stale":
			stale++
		}
	}
	var b bytes.Buffer
	head := fmt.Sprintf("agentlock status --watch  %d held, %d stale  (Ctrl-C stops)", held, stale)
	b.WriteString(Shorten(head, TableWidth) + "\n\n")
	if err := WriteStatusText(&b, records, where, root); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
