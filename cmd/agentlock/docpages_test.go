package main_test

// The pages of README.md and docs/ hold together: every relative link and
// anchor leads somewhere, and every table row has its header's columns.

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/frontend/cliconfig"
)

// repoRoot is the repository's root, from this package's folder.
var repoRoot = filepath.Join("..", "..")

// docPages are README.md and every Markdown page under docs/, as paths
// relative to the repository's root.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(repoRoot, p)
			if err != nil {
				return err
			}
			pages = append(pages, rel)
		}
		return nil
	})
	require.NoError(t, err)
	return pages
}

// mdLine is a line of a Markdown page, and whether it sits in a fenced
// code block (the fences included).
type mdLine struct {
	number int
	text   string
	fenced bool
}

// markdownLines splits a page into lines, marking the fenced code blocks
// (a fence may be indented, inside a list item).
func markdownLines(text string) []mdLine {
	var out []mdLine
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		fence := strings.HasPrefix(strings.TrimLeft(line, " "), "```")
		if fence {
			fenced = !fenced
		}
		out = append(out, mdLine{number: i + 1, text: line, fenced: fenced || fence})
	}
	return out
}

// inlineCode is an inline code span: what a link checker must not read.
var inlineCode = regexp.MustCompile("`[^`]*`")

// mdLink is a Markdown link or image target, with an optional title.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// headingLine is an ATX heading.
var headingLine = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// anchorSlug is GitHub's anchor of a heading: its text (link targets and
// code marks dropped) in lower case, without punctuation, spaces made
// hyphens.
func anchorSlug(heading string) string {
	heading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1")
	heading = strings.ToLower(strings.TrimSpace(strings.ReplaceAll(heading, "`", "")))
	var b strings.Builder
	for _, r := range heading {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// pageAnchors are the anchors of a page's headings, a repeated heading's
// numbered as GitHub numbers them (-1, -2, ...).
func pageAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range markdownLines(text) {
		m := headingLine.FindStringSubmatch(l.text)
		if l.fenced || m == nil {
			continue
		}
		slug := anchorSlug(m[1])
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// brokenLinks returns what is wrong with the relative links of the page at
// rel (relative to root): a file that does not exist, or an anchor that no
// heading of its page makes.
func brokenLinks(root, rel string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, l := range markdownLines(string(data)) {
		if l.fenced {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(l.text, ""), -1) {
			target := m[1]
			if regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`).MatchString(target) {
				continue // a URL: not this repository's to check
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := filepath.Join(root, rel)
			if file != "" {
				dest = filepath.Join(filepath.Dir(dest), filepath.FromSlash(file))
			}
			if _, err := os.Stat(dest); err != nil {
				bad = append(bad, fmt.Sprintf("%s:%d: %s: no such file", rel, l.number, target))
				continue
			}
			if anchor == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			page, err := os.ReadFile(dest)
			if err != nil {
				return nil, err
			}
			if !pageAnchors(string(page))[anchor] {
				bad = append(bad, fmt.Sprintf("%s:%d: %s: no heading makes #%s", rel, l.number, target, anchor))
			}
		}
	}
	return bad, nil
}

// Every relative link of README.md and docs/ names a file that exists,
// and every anchor a heading of its page.
func TestDocLinksResolve(t *testing.T) {
	for _, page := range docPages(t) {
		bad, err := brokenLinks(repoRoot, page)
		require.NoError(t, err)
		assert.Empty(t, bad, "broken links")
	}
}

// The checker finds what it is for: a missing page, a missing anchor; and
// it follows GitHub's anchors.
func TestDocLinkCheckerRefuses(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs", "sub"), 0o755))
	write := func(rel, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644))
	}
	write("docs/a.md", "# Title\n\n## Keep the timeout at 120 s\n\n## `status --json`, again\n\n## Again\n\n## Again\n\n```\n## not a heading\n```\n")
	write("docs/sub/b.md", strings.Join([]string{
		"[ok](../a.md#keep-the-timeout-at-120-s) [ok](../a.md#status---json-again) [ok](../a.md#again-1) [self](#here)",
		"## Here",
		"[gone](../../internal/x.md) [no anchor](../a.md#not-a-heading) [url](https://example.com/x.md#y) `[code](nowhere.md)`",
	}, "\n"))
	bad, err := brokenLinks(root, filepath.Join("docs", "sub", "b.md"))
	require.NoError(t, err)
	assert.Equal(t, []string{
		"docs/sub/b.md:3: ../../internal/x.md: no such file",
		"docs/sub/b.md:3: ../a.md#not-a-heading: no heading makes #not-a-heading",
	}, bad)
}

// tableCells splits a table row into its cells at every pipe that is not
// escaped (GitHub's rule: a pipe inside a code span in a table is written
// \|).
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cell.WriteString(`\|`)
			i++
		case row[i] == '|':
			cells = append(cells, cell.String())
			cell.Reset()
		default:
			cell.WriteByte(row[i])
		}
	}
	return append(cells, cell.String())
}

// badTableRows returns the rows of text's tables whose cells are not the
// header's, in number, or hold an unclosed code span (a cell cut at a pipe
// in the wrong place, or two cells run together).
func badTableRows(name, text string) []string {
	var bad []string
	header := 0
	for _, l := range markdownLines(text) {
		isRow := !l.fenced && strings.HasPrefix(strings.TrimSpace(l.text), "|")
		if !isRow {
			header = 0
			continue
		}
		cells := tableCells(l.text)
		if header == 0 {
			header = len(cells)
		} else if len(cells) != header {
			bad = append(bad, fmt.Sprintf("%s:%d: %d cells, the header has %d", name, l.number, len(cells), header))
		}
		for i, c := range cells {
			if strings.Count(c, "`")%2 != 0 {
				bad = append(bad, fmt.Sprintf("%s:%d: cell %d holds an unclosed code span: %s", name, l.number, i+1, strings.TrimSpace(c)))
			}
		}
	}
	return bad
}

// Every table row of README.md and docs/ has its header's columns, and no
// cell runs into another.
func TestDocTablesKeepTheirColumns(t *testing.T) {
	for _, page := range docPages(t) {
		data, err := os.ReadFile(filepath.Join(repoRoot, page))
		require.NoError(t, err)
		assert.Empty(t, badTableRows(page, string(data)), "tables")
	}
	// The checker refuses a row of cells run together (two agents' edit
	// gates interleaved) and a row with a cell too many.
	assert.Len(t, badTableRows("x.md", "| a | b | c |\n|---|---|---|\n| x | `^(a\\|b\\| `c` |d)$` |\n| 1 | 2 | 3 | 4 |\n"), 3)
	assert.Empty(t, badTableRows("x.md", "| a | b |\n|---|---|\n| `x\\|y` | `z` |\n"))
}

// sectionOf returns the lines of text under the heading (a whole line,
// such as "## Configuration") down to the next heading of its level or
// above.
func sectionOf(text, heading string) []mdLine {
	level := strings.Index(heading, " ")
	var out []mdLine
	in := false
	for _, l := range markdownLines(text) {
		if !l.fenced && headingLine.MatchString(l.text) {
			if in && strings.Index(l.text, " ") <= level {
				break
			}
			if l.text == heading {
				in = true
				continue
			}
		}
		if in {
			out = append(out, l)
		}
	}
	return out
}

// tableNames are the names a section's tables define: the code spans of
// each row's first cell ("`age`, `expires_in`" defines two).
func tableNames(lines []mdLine) map[string]bool {
	out := map[string]bool{}
	for _, l := range lines {
		if l.fenced || !strings.HasPrefix(strings.TrimSpace(l.text), "|") {
			continue
		}
		for _, m := range inlineCode.FindAllString(tableCells(l.text)[0], -1) {
			out[strings.Trim(m, "`")] = true
		}
	}
	return out
}

// The README's configuration table names every environment variable the
// configuration binds (cliconfig.EnvBindings), and nothing else.
func TestConfigurationTableNamesEveryVariable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	require.NoError(t, err)
	section := sectionOf(string(data), "## Configuration")
	require.NotEmpty(t, section, "README.md has a ## Configuration section")
	documented := tableNames(section)
	bound := map[string]bool{}
	for _, b := range cliconfig.EnvBindings {
		bound[b[1]] = true
		assert.True(t, documented[b[1]], "README.md's configuration table does not name %s", b[1])
	}
	for name := range documented {
		assert.True(t, bound[name], "README.md's configuration table names %s, which the configuration does not read", name)
	}
}

// timeoutDefault is how a page states what the home's timeout file holds
// by default: "`timeout` file (`2m0s` by default".
var timeoutDefault = regexp.MustCompile("`timeout` file \\(`([^`]+)` by default")

// What the pages say the timeout file holds by default is what init
// writes there.
func TestDocsStateTheTimeoutFileAsWritten(t *testing.T) {
	p := newProject(t)
	requireExit(t, 0, p.run("init"))
	written := strings.TrimSpace(p.read(filepath.Join(".agent-registry", "timeout")))
	stated := 0
	for _, page := range docPages(t) {
		data, err := os.ReadFile(filepath.Join(repoRoot, page))
		require.NoError(t, err)
		for _, m := range timeoutDefault.FindAllStringSubmatch(string(data), -1) {
			stated++
			assert.Equal(t, written, m[1], "%s says the timeout file holds %s by default", page, m[1])
		}
	}
	assert.NotZero(t, stated, "no page states the timeout file's default any more: update this test's pattern")
}

// exampleCommand is an example's command line: an agentlock command, maybe
// fed by a pipe, maybe sent to the background.
var exampleCommand = regexp.MustCompile(`^  (\S.*\| )?agentlock [^|]*$`)

// badExamples returns the lines of the reference's Examples blocks that
// are no command: each line of a cobra Example is a command line,
// indented, with at most a trailing comment; prose belongs in the Long
// text.
func badExamples(ref string) []string {
	var bad []string
	expect, in := false, false
	for i, line := range strings.Split(ref, "\n") {
		switch {
		case line == "Examples:":
			expect = true
		case expect && line == "```":
			expect, in = false, true
		case in && line == "```":
			in = false
		case in:
			command, _, _ := strings.Cut(line, "  # ")
			if !exampleCommand.MatchString(strings.TrimRight(command, " ")) {
				bad = append(bad, fmt.Sprintf("docs/cli.md:%d: %q", i+1, line))
			}
		}
	}
	return bad
}

// Every line of every command's Examples (docs/cli.md, which
// TestCLIReference keeps equal to the command tree) is a command.
func TestExamplesAreCommands(t *testing.T) {
	data, err := os.ReadFile(cliReference)
	require.NoError(t, err)
	require.Contains(t, string(data), "Examples:")
	assert.Empty(t, badExamples(string(data)), "prose or blank lines in an Examples block")
	assert.Equal(t, []string{`docs/cli.md:5: ""`, `docs/cli.md:6: "With --scope repository, every git worktree shares one home."`},
		badExamples("Examples:\n\n```\n  agentlock init --check   # CI\n\nWith --scope repository, every git worktree shares one home.\n  echo '{}' | agentlock hook claude pre-edit\n```\n"))
}

// No page or help text says that a build from a work tree reports
// "devel": one in a git clone reports the pseudo-version Go recorded.
func TestVersionDocsSayWhatABuildReports(t *testing.T) {
	devel := regexp.MustCompile("[`\"]devel[`\"] for a build from a work tree")
	for _, page := range append(docPages(t), filepath.Join("docs", "schema", "version.json")) {
		data, err := os.ReadFile(filepath.Join(repoRoot, page))
		require.NoError(t, err)
		assert.NotRegexp(t, devel, string(data), page)
	}
	for _, page := range []string{filepath.Join("docs", "json.md"), filepath.Join("docs", "cli.md")} {
		data, err := os.ReadFile(filepath.Join(repoRoot, page))
		require.NoError(t, err)
		assert.Contains(t, string(data), "pseudo-version", "%s says what a build in a git clone reports", page)
	}
}

// checkName finds the names doctor's checks are made with in its sources:
// a Check or Diagnosis literal's Name, a check function's name constant,
// the first argument of the helpers that make a check by name. A name
// ending in "-" is a prefix ("gating-" + the agent's name).
var checkName = regexp.MustCompile(`(?:Check|Diagnosis)\{Name: "([a-z0-9.-]+)"|const name = "([a-z0-9.-]+)"|(?:notChecked|fileSystem)\("([a-z0-9.-]+)"|\{"([a-z0-9.-]+)", "the `)

// doctorSources are the files that make doctor's checks.
func doctorSources(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"internal/doctor/*.go", "integrations/doctor.go", "integrations/*/doctor.go", "store/etcdstore/diagnose.go"} {
		found, err := filepath.Glob(filepath.Join(repoRoot, pattern))
		require.NoError(t, err)
		for _, f := range found {
			if !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
		}
	}
	return files
}

// docs/doctor.md's table names every check doctor can make.
func TestDoctorDocNamesEveryCheck(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "doctor.md"))
	require.NoError(t, err)
	documented := tableNames(markdownLines(string(data)))
	names := map[string]bool{}
	for _, f := range doctorSources(t) {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range checkName.FindAllStringSubmatch(string(src), -1) {
			names[m[1]+m[2]+m[3]+m[4]] = true
		}
	}
	require.Contains(t, names, "lock-files", "the pattern finds doctor's checks")
	require.Contains(t, names, "gating-", "the pattern finds a check named by prefix")
	for name := range names {
		if prefix, ok := strings.CutSuffix(name, "-"); ok {
			assert.True(t, documented[prefix+"-<agent>"], "docs/doctor.md's table does not name %s<agent>", name)
			continue
		}
		assert.True(t, documented[name], "docs/doctor.md's table does not name the check %q", name)
	}
}
