package main_test

// Custom script commands. Each states its usage, refuses "!" where a
// negation would mean nothing, and fails the script through ts.Check or
// ts.Fatalf. testdata/script/README.md lists them with examples.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"
)

var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"exits":       cmdExits,
	"lockname":    cmdLockname,
	"writelock":   cmdWritelock,
	"lockheld":    cmdLockheld,
	"lockfree":    cmdLockfree,
	"renewed":     cmdRenewed,
	"samefile":    cmdSamefile,
	"jsonl":       cmdJSONL,
	"frontmatter": cmdFrontmatter,
	"extract":     cmdExtract,
	"replace":     cmdReplace,
	"envsubst":    cmdEnvsubst,
	"snapshot":    cmdSnapshot,
	"inorder":     cmdInorder,
	"backdate":    cmdBackdate,
	"inode":       cmdInode,
	"schema":      cmdSchema,
	"denied":      cmdDenied,
}

// noNeg fails the script when a command that cannot be negated is.
func noNeg(ts *testscript.TestScript, neg bool, name string) {
	if neg {
		ts.Fatalf("unsupported: ! %s", name)
	}
}

// exits CODE PROGRAM [ARGS...] runs PROGRAM like exec and requires it to
// exit with CODE; stdout and stderr are kept for the next commands. exec and
// ! exec only tell zero from non-zero; the exit codes are agentlock's
// contract.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "exits (give the expected code)")
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]: code %q is not a number", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		got = exit.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// lockname VAR REALPATH sets $VAR to the name of the lock file of a real
// path, computed here independently of agentlock: the first 16 hex digits of
// the path's SHA-256, then ".lock".
func cmdLockname(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "lockname")
	if len(args) != 2 {
		ts.Fatalf("usage: lockname VAR REALPATH")
	}
	ts.Setenv(args[0], lockName(args[1]))
}

// writelock [-digits=N] FILE OWNER AGE [REALPATH] writes a lock record as
// another agent-registry process would: OWNER|timestamp|REALPATH, renewed
// AGE (a Go duration) ago, with N decimals (6 by default; 0 for whole
// seconds) and without a newline. Without REALPATH it writes the 0.1.0
// form, OWNER|timestamp. The folder is created.
func cmdWritelock(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "writelock")
	const usage = "usage: writelock [-digits=N] FILE OWNER AGE [REALPATH]"
	fl := flag.NewFlagSet("writelock", flag.ContinueOnError)
	digits := fl.Int("digits", 6, "decimals of the timestamp")
	if err := fl.Parse(args); err != nil || fl.NArg() < 3 || fl.NArg() > 4 {
		ts.Fatalf("%s", usage)
	}
	file, owner := ts.MkAbs(fl.Arg(0)), fl.Arg(1)
	age, err := time.ParseDuration(fl.Arg(2))
	if err != nil {
		ts.Fatalf("%s: %v", usage, err)
	}
	at := time.Now().Add(-age)
	stamp := strconv.FormatInt(at.Unix(), 10)
	if *digits > 0 {
		stamp = strconv.FormatFloat(float64(at.UnixNano())/1e9, 'f', *digits, 64)
	}
	record := owner + "|" + stamp
	if fl.NArg() == 4 {
		record += "|" + fl.Arg(3)
	}
	ts.Check(os.MkdirAll(filepath.Dir(file), 0o755))
	ts.Check(os.WriteFile(file, []byte(record), 0o644))
}

// lockRecord reads a lock file's fields: owner, timestamp and, in the 0.2
// form, the real path. A missing or empty file has none.
func lockRecord(ts *testscript.TestScript, file string) []string {
	data, err := os.ReadFile(ts.MkAbs(file))
	if errors.Is(err, fs.ErrNotExist) || len(data) == 0 {
		return nil
	}
	ts.Check(err)
	return strings.SplitN(string(data), "|", 3)
}

// lockheld LOCKFILE OWNER [REALPATH] requires the lock file to name OWNER.
// With REALPATH, it must be a whole 0.2 record: a numeric timestamp and
// REALPATH as the recorded path.
func cmdLockheld(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "lockheld (use lockfree, or lockheld with the other owner)")
	if len(args) != 2 && len(args) != 3 {
		ts.Fatalf("usage: lockheld LOCKFILE OWNER [REALPATH]")
	}
	rec := lockRecord(ts, args[0])
	if rec == nil {
		ts.Fatalf("%s is free, want it held by %s", args[0], args[1])
	}
	if len(args) == 3 {
		if len(rec) != 3 {
			ts.Fatalf("%s holds %q, not owner|timestamp|path", args[0], strings.Join(rec, "|"))
		}
		_, err := strconv.ParseFloat(rec[1], 64)
		ts.Check(err)
		if rec[2] != args[2] {
			ts.Fatalf("%s records the path %q, want %q", args[0], rec[2], args[2])
		}
	}
	if rec[0] != args[1] {
		ts.Fatalf("%s is held by %q, want %q", args[0], rec[0], args[1])
	}
}

// lockfree LOCKFILE requires the lock file to be missing or empty.
func cmdLockfree(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "lockfree (use lockheld)")
	if len(args) != 1 {
		ts.Fatalf("usage: lockfree LOCKFILE")
	}
	if rec := lockRecord(ts, args[0]); rec != nil {
		ts.Fatalf("%s is held by %q, want it free", args[0], rec[0])
	}
}

// renewed OLD NEW SECONDS requires the lock record in NEW to be more than
// SECONDS newer than the one in OLD (a copy taken earlier).
func cmdRenewed(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "renewed")
	if len(args) != 3 {
		ts.Fatalf("usage: renewed OLD NEW SECONDS")
	}
	stamp := func(file string) float64 {
		rec := lockRecord(ts, file)
		if len(rec) < 2 {
			ts.Fatalf("%s holds no lock record", file)
		}
		v, err := strconv.ParseFloat(rec[1], 64)
		ts.Check(err)
		return v
	}
	gap, err := strconv.ParseFloat(args[2], 64)
	ts.Check(err)
	if before, after := stamp(args[0]), stamp(args[1]); after <= before+gap {
		ts.Fatalf("%s was renewed at %f, not more than %gs after %s (%f)", args[1], after, gap, args[0], before)
	}
}

// samefile A B requires A and B to be the same file (device and inode), as
// a hard link taken earlier and the file now; ! samefile, different files.
func cmdSamefile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: samefile A B")
	}
	a, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	b, err := os.Stat(ts.MkAbs(args[1]))
	ts.Check(err)
	if same := os.SameFile(a, b); same == neg {
		ts.Fatalf("%s and %s: same file is %t", args[0], args[1], same)
	}
}

// jsonl [-lines=N] [-line=I] [-count=N] SOURCE COND... checks JSON lines:
// SOURCE (stdout, stderr or a file) must be JSON objects, one per non-empty
// line, and -lines=N of them. The CONDs select lines; at least one line must
// satisfy all of them, or exactly -count=N, or line I (from 1) must.
// ! jsonl: no line satisfies them. A COND is
//
//	KEY=VALUE    equal: a string as is, anything else as compact JSON
//	KEY~REGEXP   the value (as for =) matches
//	KEY<NUMBER   KEY>NUMBER
//	KEY[]=VALUE  an array holding VALUE
//	len(KEY)=N   an array or object of N entries
//
// where KEY may name nested fields with dots: a.b.
func cmdJSONL(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: jsonl [-lines=N] [-line=I] [-count=N] stdout|stderr|FILE COND..."
	fl := flag.NewFlagSet("jsonl", flag.ContinueOnError)
	lines := fl.Int("lines", -1, "number of JSON lines")
	line := fl.Int("line", 0, "the line that must satisfy the conditions")
	count := fl.Int("count", -1, "number of lines satisfying the conditions")
	if err := fl.Parse(args); err != nil || fl.NArg() < 1 {
		ts.Fatalf("%s", usage)
	}
	if neg && (*lines >= 0 || *line > 0 || *count >= 0) {
		ts.Fatalf("unsupported: ! jsonl with -lines, -line or -count")
	}
	source := fl.Arg(0)
	conds := make([]jsonCond, 0, fl.NArg()-1)
	for _, c := range fl.Args()[1:] {
		cond, err := parseJSONCond(c)
		if err != nil {
			ts.Fatalf("%s: %v", usage, err)
		}
		conds = append(conds, cond)
	}
	objs := jsonObjects(ts, source)
	if *lines >= 0 && len(objs) != *lines {
		ts.Fatalf("%s has %d JSON lines, want %d", source, len(objs), *lines)
	}
	var matching []int
	for i, obj := range objs {
		if matchesAll(obj, conds) {
			matching = append(matching, i+1)
		}
	}
	switch {
	case neg && len(matching) > 0:
		ts.Fatalf("%s: line %d satisfies %q", source, matching[0], fl.Args()[1:])
	case neg:
	case *line > 0 && !slices.Contains(matching, *line):
		ts.Fatalf("%s: line %d does not satisfy %q", source, *line, fl.Args()[1:])
	case *count >= 0 && len(matching) != *count:
		ts.Fatalf("%s: %d lines satisfy %q, want %d", source, len(matching), fl.Args()[1:], *count)
	case *count < 0 && *line == 0 && len(matching) == 0 && len(conds) > 0:
		ts.Fatalf("%s: no line satisfies %q", source, fl.Args()[1:])
	}
}

// jsonObjects decodes the JSON object on each non-empty line of source.
func jsonObjects(ts *testscript.TestScript, source string) []map[string]any {
	var objs []map[string]any
	for i, line := range strings.Split(ts.ReadFile(source), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			ts.Fatalf("%s line %d is not a JSON object: %v: %s", source, i+1, err, line)
		}
		objs = append(objs, obj)
	}
	return objs
}

// jsonCond is one condition of jsonl on one field.
type jsonCond struct {
	key  []string
	test func(v any, ok bool) bool
}

var condSyntax = regexp.MustCompile(`^(len\()?([^=~<>\[\]()]+)(\)=|\[\]=|=|~|<|>)(.*)$`)

func parseJSONCond(s string) (jsonCond, error) {
	m := condSyntax.FindStringSubmatch(s)
	if m == nil || (m[1] != "") != (m[3] == ")=") {
		return jsonCond{}, fmt.Errorf("bad condition %q", s)
	}
	c := jsonCond{key: strings.Split(m[2], ".")}
	want := m[4]
	switch m[3] {
	case "=":
		c.test = func(v any, ok bool) bool { return ok && jsonText(v) == want }
	case "~":
		re, err := regexp.Compile(want)
		if err != nil {
			return c, err
		}
		c.test = func(v any, ok bool) bool { return ok && re.MatchString(jsonText(v)) }
	case "<", ">":
		n, err := strconv.ParseFloat(want, 64)
		if err != nil {
			return c, err
		}
		less := m[3] == "<"
		c.test = func(v any, ok bool) bool {
			f, isNum := v.(float64)
			return ok && isNum && (f < n) == less && f != n
		}
	case "[]=":
		c.test = func(v any, ok bool) bool {
			list, _ := v.([]any)
			return slices.ContainsFunc(list, func(e any) bool { return jsonText(e) == want })
		}
	case ")=":
		n, err := strconv.Atoi(want)
		if err != nil {
			return c, err
		}
		c.test = func(v any, ok bool) bool {
			switch v := v.(type) {
			case []any:
				return len(v) == n
			case map[string]any:
				return len(v) == n
			}
			return false
		}
	}
	return c, nil
}

// jsonText is a value as jsonl compares it: a string as is, anything else
// as compact JSON.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	data, _ := json.Marshal(v)
	return string(data)
}

func matchesAll(obj map[string]any, conds []jsonCond) bool {
	for _, c := range conds {
		v, ok := lookup(obj, c.key)
		if !c.test(v, ok) {
			return false
		}
	}
	return true
}

func lookup(obj map[string]any, key []string) (any, bool) {
	var v any = obj
	for _, k := range key {
		m, isObj := v.(map[string]any)
		if !isObj {
			return nil, false
		}
		if v, isObj = m[k]; !isObj {
			return nil, false
		}
	}
	return v, true
}

// frontmatter REGISTRY DOC [BODY] reads registry.md as an independent
// reader would: it must open with "---", close its YAML frontmatter with a
// "---" line, and the YAML must parse. DOC gets JSON lines for jsonl: first
// the document's fields with "agents" replaced by their number, then one
// line per agent; BODY, the text after the frontmatter.
func cmdFrontmatter(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "frontmatter")
	if len(args) != 2 && len(args) != 3 {
		ts.Fatalf("usage: frontmatter REGISTRY DOC [BODY]")
	}
	text := ts.ReadFile(args[0])
	if !strings.HasPrefix(text, "---\n") {
		ts.Fatalf("%s does not open with its frontmatter:\n%s", args[0], text)
	}
	front, body, ok := strings.Cut(text[4:], "\n---\n")
	if !ok {
		ts.Fatalf("%s does not close its frontmatter:\n%s", args[0], text)
	}
	var doc map[string]any
	ts.Check(yaml.Unmarshal([]byte(front), &doc))
	agents, _ := doc["agents"].([]any)
	doc["agents"] = len(agents)
	var out strings.Builder
	for _, v := range append([]any{doc}, agents...) {
		line, err := json.Marshal(v)
		ts.Check(err)
		out.Write(line)
		out.WriteByte('\n')
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out.String()), 0o644))
	if len(args) == 3 {
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(body), 0o644))
	}
}

// extract FILE REGEXP OUT writes to OUT the first match of REGEXP in FILE,
// or of its first group when it has one.
func cmdExtract(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "extract (use ! grep)")
	if len(args) != 3 {
		ts.Fatalf("usage: extract FILE REGEXP OUT")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile(args[0]))
	if m == nil {
		ts.Fatalf("no match for %#q in %s", args[1], args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(m[len(m)-1]), 0o644))
}

// replace FILE REGEXP REPLACEMENT replaces the first match of REGEXP in
// FILE ($1 in REPLACEMENT is its first group), as a person editing it would.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "replace")
	if len(args) != 3 {
		ts.Fatalf("usage: replace FILE REGEXP REPLACEMENT")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	text := ts.ReadFile(args[0])
	loc := re.FindStringSubmatchIndex(text)
	if loc == nil {
		ts.Fatalf("no match for %#q in %s", args[1], args[0])
	}
	edited := text[:loc[0]] + string(re.ExpandString(nil, args[2], text, loc)) + text[loc[1]:]
	path := ts.MkAbs(args[0])
	info, err := os.Stat(path)
	ts.Check(err)
	ts.Check(os.WriteFile(path, []byte(edited), info.Mode().Perm()))
}

// envsubst FILE... replaces $VAR and ${VAR} in each file, in place, with the
// script's variables: hook payloads name absolute paths under $WORK.
func cmdEnvsubst(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "envsubst")
	if len(args) == 0 {
		ts.Fatalf("usage: envsubst FILE...")
	}
	for _, f := range args {
		text := os.Expand(ts.ReadFile(f), ts.Getenv)
		ts.Check(os.WriteFile(ts.MkAbs(f), []byte(text), 0o644))
	}
}

// snapshot DIR OUT writes to OUT every file and folder below DIR but .git,
// sorted, with its permissions and, for a file, its content: two snapshots
// compared with cmp tell whether a tree changed by a single byte or bit.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "snapshot")
	if len(args) != 2 {
		ts.Fatalf("usage: snapshot DIR OUT")
	}
	dir := ts.MkAbs(args[0])
	entries := map[string]string{}
	ts.Check(filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == ".git" {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			entries[rel+"/"] = info.Mode().String() + "\n"
			return nil
		}
		data, err := os.ReadFile(path)
		entries[rel] = fmt.Sprintf("%s %d bytes\n%s\n", info.Mode(), len(data), data)
		return err
	}))
	var out strings.Builder
	for _, rel := range slices.Sorted(maps.Keys(entries)) {
		fmt.Fprintf(&out, "== %s %s", rel, entries[rel])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out.String()), 0o644))
}

// inorder FILE ORIGINAL requires every line of ORIGINAL (trimmed of
// surrounding blank space) to appear in FILE, in the same order: a user's
// file that agentlock added to keeps the user's lines.
func cmdInorder(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "inorder")
	if len(args) != 2 {
		ts.Fatalf("usage: inorder FILE ORIGINAL")
	}
	text := ts.ReadFile(args[0])
	for _, l := range strings.Split(strings.TrimSpace(ts.ReadFile(args[1])), "\n") {
		i := strings.Index(text, l)
		if i < 0 {
			ts.Fatalf("%s lacks %q of %s, or has it out of order", args[0], l, args[1])
		}
		text = text[i+len(l):]
	}
}

// backdate FILE AGE sets FILE's modification time AGE (a Go duration) in
// the past, as if nobody had written it since: a lock file left by a
// process killed long ago.
func cmdBackdate(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "backdate")
	if len(args) != 2 {
		ts.Fatalf("usage: backdate FILE AGE")
	}
	age, err := time.ParseDuration(args[1])
	if err != nil {
		ts.Fatalf("usage: backdate FILE AGE: %v", err)
	}
	at := time.Now().Add(-age)
	ts.Check(os.Chtimes(ts.MkAbs(args[0]), at, at))
}

// inode FILE OUT writes FILE's device and inode numbers to OUT, so that a
// later inode and cmp check that a path still names the same file —
// without a hard link, which a lock file must not have.
func cmdInode(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "inode")
	if len(args) != 2 {
		ts.Fatalf("usage: inode FILE OUT")
	}
	info, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		ts.Fatalf("inode: no inode numbers on this system")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), fmt.Appendf(nil, "%d:%d\n", st.Dev, st.Ino), 0o644))
}

// denied AGENT requires the output of the command before it to be AGENT's
// pre-edit denial, one line the model reads and nothing else: for claude
// and codex, PreToolUse's permissionDecision "deny" as the only JSON line
// on stdout; for gemini, {"decision":"deny"} on stdout; for copilot, a
// top-level permissionDecision "deny" on stdout; for kimi and crush, nothing
// on stdout and one line on stderr. The command must have run with the
// exit code the harness needs (exec: 0; exits 2 for kimi). The reason is
// written to $WORK/denial, for grep.
func cmdDenied(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "denied (check the stdout and exit code of an allowed edit)")
	if len(args) != 1 {
		ts.Fatalf("usage: denied AGENT")
	}
	stdout, stderr := ts.ReadFile("stdout"), ts.ReadFile("stderr")
	var reason string
	switch args[0] {
	case "claude", "codex", "qwen", "droid":
		var out struct {
			Specific map[string]string `json:"hookSpecificOutput"`
		}
		decodeOneLine(ts, stdout, &out)
		if out.Specific["hookEventName"] != "PreToolUse" || out.Specific["permissionDecision"] != "deny" {
			ts.Fatalf("stdout is not a PreToolUse deny: %q", stdout)
		}
		reason = out.Specific["permissionDecisionReason"]
	case "gemini", "copilot":
		// A flat object: the decision's member and the reason's.
		decision, why := "decision", "reason"
		if args[0] == "copilot" {
			decision, why = "permissionDecision", "permissionDecisionReason"
		}
		var out map[string]string
		decodeOneLine(ts, stdout, &out)
		if out[decision] != "deny" {
			ts.Fatalf("stdout is not a %s deny (a top-level %s): %q", args[0], decision, stdout)
		}
		reason = out[why]
	case "kimi", "crush":
		if stdout != "" {
			ts.Fatalf("a Kimi denial prints nothing on stdout; got %q", stdout)
		}
		reason = strings.TrimSuffix(stderr, "\n")
	default:
		ts.Fatalf("denied: unknown agent %q", args[0])
	}
	if reason == "" || strings.Contains(reason, "\n") {
		ts.Fatalf("the denial's reason must be one non-empty line; got %q", reason)
	}
	if !strings.HasPrefix(reason, "agentlock: ") {
		ts.Fatalf("the reason must be agentlock's own line, nothing before it; got %q", reason)
	}
	ts.Check(os.WriteFile(filepath.Join(ts.Getenv("WORK"), "denial"), []byte(reason+"\n"), 0o644))
}

// decodeOneLine decodes text, which must be one line of JSON, into v.
func decodeOneLine(ts *testscript.TestScript, text string, v any) {
	if strings.Count(text, "\n") != 1 || !strings.HasSuffix(text, "\n") {
		ts.Fatalf("want one line of JSON on stdout; got %q", text)
	}
	if err := json.Unmarshal([]byte(text), v); err != nil {
		ts.Fatalf("stdout is not JSON: %v: %q", err, text)
	}
}
