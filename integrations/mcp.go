package integrations

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// MCP registration: init writes an "agentlock" server entry that runs
// "agentlock mcp" into each agent's project MCP file. A JSON entry is
// merged into the file as text, as the hook groups are (see jsonc.go):
// only the entry, and the "mcpServers" object when agentlock added it,
// are agentlock's. A TOML entry is a managed block.

// MCPServerName is the key of agentlock's entry in the MCP files.
const MCPServerName = "agentlock"

// MCPFile is where an agent CLI reads project MCP servers.
type MCPFile struct {
	// Path is relative to the project's root.
	Path string
	// TOML is set for a TOML file ([mcp_servers.<name>] tables, Codex);
	// otherwise the file is JSON with an "mcpServers" object.
	TOML bool
	// Trust says in a few words how the CLI lets the server run, for the
	// artifact's purpose line.
	Trust string
}

// MCPRegistrar is implemented by an agent whose CLI reads project MCP
// servers (a manifest's [mcp]): it names the file.
type MCPRegistrar interface {
	MCPFile(env Env) (MCPFile, bool)
}

// MCPFileOf returns the project MCP file of agent, if its CLI has one.
func MCPFileOf(agent Agent, env Env) (MCPFile, bool) {
	if r, ok := agent.(MCPRegistrar); ok {
		return r.MCPFile(env)
	}
	return MCPFile{}, false
}

// mcpJSON is a JSON MCP file as agentlock would write it alone.
func mcpJSON(bin string) ([]byte, error) {
	command, err := json.Marshal(bin)
	if err != nil {
		return nil, fmt.Errorf("mcp entry: %w", err)
	}
	return []byte("{\n  \"mcpServers\": {\n    \"" + MCPServerName + "\": {\n      \"command\": " + string(command) +
		",\n      \"args\": [\"mcp\"]\n    }\n  }\n}\n"), nil
}

// mcpTOML is the TOML block of agentlock's server. Its tools are approved
// (default_tools_approval_mode): Codex reads a project's config.toml only
// once the user trusts the project, agentlock's tools change nothing but
// agentlock's own locks and registry, and codex exec, whose approval
// policy is "never", refuses every MCP call that needs an approval.
func mcpTOML(bin string) []byte {
	return []byte("[mcp_servers." + MCPServerName + "]\ncommand = " + strconv.Quote(bin) + "\nargs = [\"mcp\"]\n" +
		"# agentlock's tools change only agentlock's locks and registry: no approval per call.\n" +
		"default_tools_approval_mode = \"approve\"\n")
}

// addMCP adds the MCP registration of agents to arts: into an artifact
// already planned for the same file (a settings file with hooks, a TOML
// block), else as an artifact of its own; one per file, whatever the
// number of agents reading it.
// An agent whose plan is empty (not set up, for want of consent) gets no
// entry either.
func addMCP(arts []Artifact, agents []Agent, planned map[string]bool, env Env) ([]Artifact, error) {
	done := map[string]bool{}
	for _, agent := range agents {
		f, ok := MCPFileOf(agent, env)
		if !ok || done[f.Path] || !env.Removing && !planned[agent.Name()] {
			continue
		}
		done[f.Path] = true
		purpose := "MCP server entry: agentlock's tools (" + f.Trust + ")"
		merged := false
		for i := range arts {
			a := &arts[i]
			if a.Path != f.Path || a.Scope != Project {
				continue
			}
			switch {
			case f.TOML && a.Kind == TOMLBlock:
				a.Content = append(append(append([]byte{}, a.Content...), '\n'), mcpTOML(env.Bin)...)
			case !f.TOML && a.Kind == JSONHooks:
				entry, err := mcpJSON(env.Bin)
				if err != nil {
					return nil, err
				}
				a.MCP = entry
			default:
				return nil, fmt.Errorf("%s: cannot add the MCP entry to a %s", f.Path, a.Kind)
			}
			a.Purpose += "; " + purpose
			merged = true
		}
		if merged {
			continue
		}
		if f.TOML {
			arts = append(arts, Artifact{Path: f.Path, Scope: Project, Kind: TOMLBlock, Content: mcpTOML(env.Bin),
				Comment: "#", Placement: Bottom, Purpose: purpose, MCPOnly: true})
			continue
		}
		entry, err := mcpJSON(env.Bin)
		if err != nil {
			return nil, err
		}
		arts = append(arts, Artifact{Path: f.Path, Scope: Project, Kind: MCPEntry, Content: entry, MCP: entry, Purpose: purpose, MCPOnly: true})
	}
	return arts, nil
}

// ownMCPEntry reports whether an entry of "mcpServers" is agentlock's:
// its command runs agentlock and its first argument is "mcp".
func ownMCPEntry(text []byte, entry *jnode) bool {
	if entry.kind != '{' {
		return false
	}
	_, cmd := entry.member("command")
	_, args := entry.member("args")
	if cmd == nil || cmd.value.kind != '"' || args == nil || args.value.kind != '[' || len(args.value.elems) == 0 {
		return false
	}
	var command, first string
	if json.Unmarshal(text[cmd.value.start:cmd.value.end], &command) != nil ||
		json.Unmarshal(text[args.value.elems[0].start:args.value.elems[0].end], &first) != nil {
		return false
	}
	return bytes.Contains([]byte(command), []byte("agentlock")) && first == "mcp"
}

// errForeignMCP is an "agentlock" entry that is not agentlock's.
var errForeignMCP = errors.New(`its "mcpServers" already has an "agentlock" entry that does not run "agentlock mcp": rename that entry, or run init with --no-mcp`)

// installMCP merges agentlock's server entry of want (the MCP file as
// agentlock would write it alone) into text: added when missing,
// replaced when it differs. Nothing else changes.
func installMCP(text, want []byte) ([]byte, error) {
	tmpl, err := parseJSONC(want)
	if err != nil {
		return nil, fmt.Errorf("agentlock's MCP entry: %w", err)
	}
	if len(bytes.TrimSpace(text)) == 0 {
		return want, nil
	}
	_, tServers := tmpl.member("mcpServers")
	_, tEntry := tServers.value.member(MCPServerName)
	unit := indentUnit(text)
	piece := func(s span) []byte { return reindent(want[s.start:s.end], unit) }
	doc, err := parseObject(text)
	if err != nil {
		return nil, err
	}
	_, servers := doc.member("mcpServers")
	if servers == nil {
		return insertItem(text, doc, piece(span{tServers.start, tServers.value.end}), 1, unit)
	}
	if servers.value.kind != '{' {
		return nil, fmt.Errorf("%w: \"mcpServers\" is not an object", errNotJSON)
	}
	_, entry := servers.value.member(MCPServerName)
	wantEntry := piece(span{tEntry.start, tEntry.value.end})
	if entry == nil {
		return insertItem(text, servers.value, wantEntry, 2, unit)
	}
	if !ownMCPEntry(text, entry.value) {
		return nil, errForeignMCP
	}
	if !sameJSON(text[entry.value.start:entry.value.end], want[tEntry.value.start:tEntry.value.end]) {
		text = concat(text[:entry.start], wantEntry, text[entry.value.end:])
	}
	return text, nil
}

// sameJSON reports whether two JSON values are equal as values, whatever
// their layout.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

// removeMCP removes agentlock's server entry from text, and the
// "mcpServers" object it leaves empty. An empty result means the file held
// nothing else. A file without the entry is returned as it is.
func removeMCP(text []byte) ([]byte, error) {
	if len(bytes.TrimSpace(text)) == 0 {
		return text, nil
	}
	doc, err := parseObject(text)
	if err != nil {
		return nil, err
	}
	si, servers := doc.member("mcpServers")
	if servers == nil || servers.value.kind != '{' {
		return text, nil
	}
	ei, entry := servers.value.member(MCPServerName)
	if entry == nil || !ownMCPEntry(text, entry.value) {
		return text, nil
	}
	if len(servers.value.members) > 1 {
		return removeItem(text, servers.value, ei), nil
	}
	text = removeItem(text, doc, si)
	if doc, err = parseJSONC(text); err == nil && len(doc.members) == 0 {
		return nil, nil
	}
	return text, err
}
