package workspace

import (
	"strings"

	"github.com/agentlock/agentlock/core"
)

// SessionEdit changes some fields of a registered session, as agentlock
// update does: the new value of each field it names (by
// SessionEditFields), the text of a text field or a comma-separated list
// (see SplitList). The fields it does not name stay as they are.
type SessionEdit map[string]string

// SessionEditFields are the fields a SessionEdit names, as update's flags
// spell them: text fields, then lists.
var SessionEditFields = []string{"working-on", "status", "provider", "ai-version", "issues",
	"space", "todo-past", "todo-present", "todo-future"}

// Apply changes s as e says; it is the change function of
// core.Registry.Update.
func (e SessionEdit) Apply(s *core.Session) {
	for name, dst := range map[string]*string{"working-on": &s.WorkingOn, "status": &s.Status,
		"provider": &s.Provider, "ai-version": &s.AIVersion, "issues": &s.Issues} {
		if v, ok := e[name]; ok {
			*dst = v
		}
	}
	for name, dst := range map[string]*[]string{"space": &s.Space, "todo-past": &s.Todo.Past,
		"todo-present": &s.Todo.Present, "todo-future": &s.Todo.Future} {
		if v, ok := e[name]; ok {
			*dst = SplitList(v)
		}
	}
}

// SplitList reads a comma-separated list; items are trimmed, blank ones
// dropped. An empty s is an empty list (not nil): it empties a field.
func SplitList(s string) []string {
	out := []string{}
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
