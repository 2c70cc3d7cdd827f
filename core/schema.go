package core

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The schema of agent-registry 0.2, and how agentlock reads whatever a
// registry really holds.
//
// agentlock reads every registry that 0.2 can write, and more: any key
// order, block or flow style, CRLF line ends, a UTF-8 byte order mark. A
// value of an unexpected type is not corruption. It is converted to the
// type of 0.2's schema when nothing is lost by doing so (a number where a
// string belongs, null, a single string where a list belongs, a list of
// strings where 0.2 writes one string); otherwise (a mapping where a string
// belongs, say) it is kept as found and written back unchanged for as long
// as agentlock does not set that field, while people and JSON see it as
// its YAML text. Keys agentlock does not know are kept, with their values,
// at every level. The registry is corrupt only when its frontmatter is not
// YAML, or does not hold an agents list: then it is not a registry, and
// overwriting it could destroy someone's file.

// Keys of the frontmatter, in agent-registry 0.2's order.
var (
	topKeys     = []string{"version", "last_updated", "agents"}
	sessionKeys = []string{"session_id", "provider", "ai_version", "started_at", "working_on", "todo",
		"space", "do_not_touch", "status", "issues", "handoff"}
	// optionalSessionKeys are the keys agentlock adds to a session only
	// when set (repository scope; a sub-agent's parent): 0.2 keeps them as
	// unknown keys.
	optionalSessionKeys = []string{"worktree", "branch", "parent"}
	todoKeys            = []string{"past", "present", "future"}
)

// foreign holds what a registry had that agentlock does not model: keys it
// does not know, with their values, and known keys whose values it could
// not convert to 0.2's types without loss. The zero value holds nothing.
type foreign struct {
	// extra are key and value nodes, alternating, in the order found.
	extra []*yaml.Node
	// kept are the values found for known keys that agentlock could not
	// convert, by key, with the view it gave of them.
	kept map[string]keptValue
}

// keptValue is a value found for a known key, and agentlock's view of it
// (a string, a []string or a Todo). The value is written back as found as
// long as the field still holds that view, that is, as long as agentlock
// did not set the field.
type keptValue struct {
	node *yaml.Node
	view any
}

func (f *foreign) empty() bool { return len(f.extra) == 0 && len(f.kept) == 0 }

func (f *foreign) keep(key string, node *yaml.Node, view any) {
	if f.kept == nil {
		f.kept = map[string]keptValue{}
	}
	f.kept[key] = keptValue{node: node, view: view}
}

// found returns the node to write for key as found, when the field's
// current value is still the view agentlock gave of it.
func (f *foreign) found(key string, current any) (*yaml.Node, bool) {
	k, ok := f.kept[key]
	if !ok || !sameView(k.view, current) {
		return nil, false
	}
	return k.node, true
}

func sameView(a, b any) bool {
	switch a := a.(type) {
	case string:
		b, ok := b.(string)
		return ok && a == b
	case []string:
		b, ok := b.([]string)
		return ok && slices.Equal(a, b)
	case Todo:
		b, ok := b.(Todo)
		return ok && slices.Equal(a.Past, b.Past) && slices.Equal(a.Present, b.Present) && slices.Equal(a.Future, b.Future)
	}
	return false
}

// UnmarshalYAML reads a frontmatter as described at the top of this file.
// It fails only when the frontmatter is not a mapping with an agents list.
func (d *Document) UnmarshalYAML(n *yaml.Node) error {
	*d = Document{}
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("the frontmatter is not a mapping of keys to values")
	}
	hasAgents, hasVersion := false, false
	err := eachPair(n, topKeys, &d.foreign, func(key string, v *yaml.Node) error {
		switch key {
		case "version":
			hasVersion = true
			// Kept as found: a version that is not a plain string (1.0
			// written as a number) is written back the same way.
			d.Version = d.text(key, v)
			if rv := resolve(v); rv.Kind == yaml.ScalarNode && rv.ShortTag() != "!!str" && rv.ShortTag() != "!!null" {
				d.keep(key, v, d.Version)
			}
		case "last_updated":
			d.LastUpdated = d.text(key, v)
		case "agents":
			hasAgents = true
			return d.agents(resolve(v))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !hasAgents {
		return fmt.Errorf("the frontmatter has no agents list")
	}
	if !hasVersion {
		d.Version = RegistryVersion // written from now on
	}
	return nil
}

func (d *Document) agents(v *yaml.Node) error {
	d.Agents = []Session{}
	switch {
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null": // "agents:" with nothing: 0.2 reads no session
		return nil
	case v.Kind != yaml.SequenceNode:
		return fmt.Errorf("agents is not a list")
	}
	for _, item := range v.Content {
		var s Session
		if m := resolve(item); m.Kind == yaml.MappingNode {
			s.read(m)
		} else {
			s.opaque = item // not a session: kept as found
		}
		d.Agents = append(d.Agents, s)
	}
	return nil
}

// read fills s from the mapping m.
func (s *Session) read(m *yaml.Node) {
	strs := map[string]*string{"session_id": &s.SessionID, "provider": &s.Provider, "ai_version": &s.AIVersion,
		"started_at": &s.StartedAt, "working_on": &s.WorkingOn, "status": &s.Status, "issues": &s.Issues, "handoff": &s.Handoff,
		"worktree": &s.Worktree, "branch": &s.Branch, "parent": &s.Parent}
	lists := map[string]*[]string{"space": &s.Space, "do_not_touch": &s.DoNotTouch}
	eachPair(m, append(slices.Clip(sessionKeys), optionalSessionKeys...), &s.foreign, func(key string, v *yaml.Node) error {
		switch {
		case strs[key] != nil:
			*strs[key] = s.text(key, v)
		case lists[key] != nil:
			*lists[key] = s.list(key, v)
		default: // todo
			s.Todo = s.todo(v)
		}
		return nil
	})
	normalizeLists(s)
}

// todo reads a session's todo: a mapping of the three lists. Anything else
// is kept as found; people see its text as the present task.
func (s *Session) todo(v *yaml.Node) Todo {
	var t Todo
	r := resolve(v)
	switch {
	case r.Kind == yaml.MappingNode:
		lists := map[string]*[]string{"past": &t.Past, "present": &t.Present, "future": &t.Future}
		eachPair(r, todoKeys, &t.foreign, func(key string, v *yaml.Node) error {
			*lists[key] = t.list(key, v)
			return nil
		})
	case r.Kind == yaml.ScalarNode && r.ShortTag() == "!!null":
	default:
		if items, ok := scalarItems(r); ok {
			t.Present = items
		} else {
			t.Present = []string{yamlText(r)}
		}
		s.keep("todo", v, t)
	}
	return t
}

// eachPair calls f for every known key of the mapping m (the last one, when
// a key is repeated, as PyYAML reads it) and collects the other pairs into
// fg.
func eachPair(m *yaml.Node, known []string, fg *foreign, f func(key string, v *yaml.Node) error) error {
	last := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := keyName(m.Content[i]); slices.Contains(known, k) {
			last[k] = i
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := keyName(m.Content[i])
		j, isKnown := last[k]
		switch {
		case !isKnown:
			fg.extra = append(fg.extra, m.Content[i], m.Content[i+1])
		case j == i:
			if err := f(k, m.Content[i+1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// keyName is the name of a mapping key: its text when it is a string
// scalar; "" (never a known key) otherwise.
func keyName(k *yaml.Node) string {
	if k = resolve(k); k.Kind == yaml.ScalarNode && k.ShortTag() == "!!str" {
		return k.Value
	}
	return ""
}

// text converts the value v of a string field key: a scalar is its text,
// null is empty, a list of scalars is their texts joined by ", ". A list is
// kept as found (written back unchanged while the field keeps that text),
// but for issues and handoff, which older agentlock versions wrote as lists
// and which are written as text from then on; so is a scalar that is not a
// string (a number, a boolean). Anything else is kept as found too: a
// wrong-typed value never changes type, and a session_id never its
// identity, because agentlock read it.
func (f *foreign) text(key string, v *yaml.Node) string {
	r := resolve(v)
	switch {
	case r.Kind == yaml.ScalarNode && r.ShortTag() == "!!null":
		return ""
	case r.Kind == yaml.ScalarNode:
		if r.ShortTag() != "!!str" {
			f.keep(key, v, r.Value)
		}
		return r.Value
	}
	if items, ok := scalarItems(r); ok {
		joined := strings.Join(items, ", ")
		if key != "issues" && key != "handoff" {
			f.keep(key, v, joined)
		}
		return joined
	}
	view := yamlText(r)
	f.keep(key, v, view)
	return view
}

// list converts the value v of a list field key: a list of scalars is
// their texts, null or an empty string is an empty list, one scalar is a
// list of one. Anything else is kept as found.
func (f *foreign) list(key string, v *yaml.Node) []string {
	r := resolve(v)
	switch {
	case r.Kind == yaml.ScalarNode && (r.ShortTag() == "!!null" || r.Value == ""):
		return []string{}
	case r.Kind == yaml.ScalarNode:
		return []string{r.Value}
	}
	if items, ok := scalarItems(r); ok {
		return items
	}
	var view []string
	if r.Kind == yaml.SequenceNode {
		for _, it := range r.Content {
			view = append(view, yamlText(resolve(it)))
		}
	} else {
		view = []string{yamlText(r)}
	}
	f.keep(key, v, view)
	return view
}

// scalarItems returns the texts of a sequence whose items are all non-null
// scalars.
func scalarItems(r *yaml.Node) ([]string, bool) {
	if r.Kind != yaml.SequenceNode {
		return nil, false
	}
	items := make([]string, 0, len(r.Content))
	for _, it := range r.Content {
		it = resolve(it)
		if it.Kind != yaml.ScalarNode || it.ShortTag() == "!!null" {
			return nil, false
		}
		items = append(items, it.Value)
	}
	return items, true
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// yamlText renders a node as one line of flow YAML, for people.
func yamlText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	c := expandAliases(n, 0)
	setFlow(c)
	out, err := yaml.Marshal(c)
	if err != nil {
		return fmt.Sprintf("(%s)", n.ShortTag())
	}
	return strings.TrimSpace(string(out))
}

func setFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	for _, c := range n.Content {
		setFlow(c)
	}
}

// expandAliases returns a deep copy of n in which every alias is replaced
// by a copy of the node it names, and no node carries an anchor: a value
// written back on its own must not refer to an anchor that agentlock may
// have rewritten away.
func expandAliases(n *yaml.Node, depth int) *yaml.Node {
	if depth > 100 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	n = resolve(n)
	c := *n
	c.Anchor, c.Alias = "", nil
	if n.Kind == yaml.AliasNode { // an alias that names nothing
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		c.Content[i] = expandAliases(ch, depth+1)
	}
	return &c
}
