package codex

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Codex applies a patch that the model runs through its shell tool
// (`apply_patch <<'EOF' … EOF`, or `cd dir && apply_patch <<'EOF' …`)
// itself, and its PreToolUse hook sees it as tool "Bash" with the whole
// script in tool_input.command. Models outside Codex's catalog have no
// other way to edit. The functions here find the files such a script
// patches, and nothing in any other shell command: an ordinary command
// (ls, go test, grep apply_patch) must pass untouched.

// applyPatchNames are the command names Codex treats as apply_patch.
var applyPatchNames = map[string]bool{"apply_patch": true, "applypatch": true}

// heredocStart finds a here-document operator and its delimiter: <<EOF,
// <<'EOF', <<"EOF", <<-EOF.
var heredocStart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`<<-?[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|([A-Za-z0-9_.\-]+))`)
})

// strictCd is the one form in which Codex itself applies the patch in
// another folder: the whole script is `cd <path> && apply_patch <<…`, with
// one plain, double-quoted or single-quoted argument to cd.
var strictCd = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\A\s*cd[ \t]+(?:'([^'\n]*)'|"([^"\n]*)"|([^\s'"&|;<>()]+))[ \t]*&&[ \t]*(?:apply_patch|applypatch)[ \t]*<<`)
})

// cdCommand is a cd anywhere in a script, for the forms Codex leaves to
// the shell (where its apply_patch executable patches relative to the
// shell's folder).
var cdCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[;&|(\n]|&&)[ \t]*cd[ \t]+(?:'([^'\n]*)'|"([^"\n]*)"|([^\s'"&|;<>()]+))`)
})

// shellScript is one shell command line as the hook sees it: the lines of
// the script outside here-document bodies, and the bodies.
type shellScript struct {
	commands []string // lines outside here-documents
	bodies   []string // here-document bodies
}

// splitHeredocs separates a script's here-document bodies from its
// command lines. A body ends at a line equal to its delimiter (leading
// tabs allowed for <<-, and tolerated for the others).
func splitHeredocs(script string) shellScript {
	var s shellScript
	lines := strings.Split(script, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r")
		s.commands = append(s.commands, line)
		var pending []string
		for _, m := range heredocStart().FindAllStringSubmatch(line, -1) {
			pending = append(pending, m[1]+m[2]+m[3])
		}
		for _, delim := range pending {
			var body []string
			for i++; i < len(lines); i++ {
				l := strings.TrimRight(lines[i], "\r")
				if strings.TrimLeft(l, " \t") == delim {
					break
				}
				body = append(body, l)
			}
			s.bodies = append(s.bodies, strings.Join(body, "\n"))
		}
	}
	return s
}

// invokesApplyPatch reports whether a command line runs apply_patch (or
// applypatch) as a command, not as an argument: the first word of a
// simple command, after variable assignments and the prefixes that run
// their arguments (env, command, exec, sudo, time, nohup, xargs).
func invokesApplyPatch(line string) bool {
	for _, segment := range splitCommands(line) {
		fields := strings.Fields(segment)
		for _, f := range fields {
			f = strings.Trim(f, `'"`)
			if strings.Contains(f, "=") && !strings.HasPrefix(f, "=") && !strings.Contains(f, "/") {
				continue // VAR=value
			}
			switch f {
			case "env", "command", "exec", "sudo", "time", "nohup", "xargs", "then", "do", "else", "!", "{":
				continue
			}
			if applyPatchNames[filepath.Base(f)] {
				return true
			}
			break
		}
	}
	return false
}

// splitCommands cuts a command line at the shell's command separators
// outside quotes: ; & | && || ( ) ` $( and newlines.
func splitCommands(line string) []string {
	var out []string
	var b strings.Builder
	var quote rune
	flush := func() {
		out = append(out, b.String())
		b.Reset()
	}
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
			b.WriteRune(r)
		case r == '\'' || r == '"':
			quote = r
			b.WriteRune(r)
		case strings.ContainsRune(";&|()`\n", r):
			flush()
		case r == '$':
			flush() // $( starts a command; a variable is never apply_patch
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return out
}

// shellPatchPaths returns the files a shell script run by the model
// patches through apply_patch, relative to the session's folder, and
// whether the script invokes apply_patch at all. A script that does not
// gives (nil, false). Header lines are read wherever the script holds them
// (a here-document, a quoted argument); when Codex applies the strict
// `cd <path> && apply_patch <<…` form itself, the paths are relative to
// that folder; other cds make the paths count relative to every folder
// the script changes to as well as the session's.
func shellPatchPaths(script string, headerPaths func([]string) []string) (paths []string, invokes bool) {
	s := splitHeredocs(script)
	for _, line := range s.commands {
		if invokesApplyPatch(line) {
			invokes = true
			break
		}
	}
	if !invokes {
		return nil, false
	}
	headers := headerPaths([]string{script})
	bases := []string{""}
	if m := strictCd().FindStringSubmatch(script); m != nil {
		bases = []string{m[1] + m[2] + m[3]}
	} else {
		for _, line := range s.commands {
			for _, m := range cdCommand().FindAllStringSubmatch(line, -1) {
				bases = append(bases, m[1]+m[2]+m[3])
			}
		}
	}
	seen := map[string]bool{}
	for _, base := range bases {
		for _, p := range headers {
			if base != "" && !filepath.IsAbs(p) {
				p = filepath.Join(base, p)
			}
			if !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
	}
	return paths, true
}
