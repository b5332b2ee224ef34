package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bench-bridge/bench-bridge/config"
)

var updateTables = flag.Bool("update-tables", false, "rewrite the tables and outputs the docs quote (scripts/doc-tables)")

// docPages are the pages a user reads, README.md and docs/*.md, by their path from the repository root.
func docPages(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	pages := map[string]string{}
	for _, p := range append(paths, "../../README.md") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pages[strings.TrimPrefix(p, "../../")] = string(b)
	}
	return pages
}

// commandTree is bench-bridge's commands as a user's command line has them, the built-in targets included.
func commandTree() *cobra.Command {
	f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}}
	root := newRoot(f)
	addTargetCmds(root, f, nil)
	return root
}

// programFlags are the flags of the bench programs that bench-bridge runs (docs/protocol.md), which are not its
// own: the docs quote them in the programs' command lines.
var programFlags = []string{"min-time-ns", "warmup-ns", "ops", "ref", "itimer"}

// unit is a stretch of a page that says one thing: a sentence, a table row, a list item, a line of a code block.
type unit struct {
	line int
	text string
	code bool // a line of a code block: a command line, or a comment after one
}

// units splits a page into units. Inside a fenced code block each line is one; outside, paragraphs are split into
// sentences at a full stop followed by a space, and table rows and list items stand alone.
func units(page string) []unit {
	var out []unit
	var para []string
	start := 0
	flush := func() {
		text := strings.Join(para, " ")
		para = nil
		for len(text) > 0 {
			end := sentenceEnd(text)
			out = append(out, unit{line: start, text: text[:end]})
			text = strings.TrimSpace(text[end:])
		}
	}
	fenced := false
	for i, l := range strings.Split(page, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			flush()
			fenced = !fenced
		case fenced:
			out = append(out, unit{line: i + 1, text: l, code: true})
		case trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "<!--"):
			flush()
		case strings.HasPrefix(trimmed, "|") || strings.HasPrefix(trimmed, "- ") || regexp.MustCompile(`^\d+\. `).MatchString(trimmed):
			flush()
			start = i + 1
			para = []string{trimmed}
		default:
			if len(para) == 0 {
				start = i + 1
			}
			para = append(para, trimmed)
		}
	}
	flush()
	return out
}

// sentenceEnd is where text's first sentence ends: after a full stop followed by a space and a capital, a code span
// or a bracket; the whole text when there is none.
func sentenceEnd(text string) int {
	for i := 0; i+2 < len(text); i++ {
		if text[i] == '.' && text[i+1] == ' ' && strings.ContainsAny(text[i+2:i+3], "ABCDEFGHIJKLMNOPQRSTUVWXYZ`([*") {
			return i + 1
		}
	}
	return len(text)
}

// mention is a flag a unit quotes, with the commands it belongs to: those the command line or code span around it
// names, or else those the unit names; none known means any command of bench-bridge's.
type mention struct {
	flag  string
	cmds  []*cobra.Command
	after string // the unit's text after the flag, for a default quoted with it
	other bool   // another program's flag: a code span or command line that is not bench-bridge's
}

var (
	codeSpan  = regexp.MustCompile("`[^`]+`")
	flagToken = regexp.MustCompile(`(^|[^\w-])--([a-z][a-z0-9-]*)`)
)

// mentions lists the flags unit quotes. In a code span or a code line, the first word says whose the flags are:
// bench-bridge (or scripts/bench) and a command, a command's name alone, a flag (then the unit's commands), or
// another program. Flags in prose belong to the commands the unit names.
func mentions(root *cobra.Command, u unit) []mention {
	var named []*cobra.Command
	type span struct {
		text  string
		start int
	}
	var spans []span
	if u.code {
		spans = []span{{u.text, 0}}
	} else {
		for _, loc := range codeSpan.FindAllStringIndex(u.text, -1) {
			spans = append(spans, span{u.text[loc[0]+1 : loc[1]-1], loc[0] + 1})
		}
	}
	owner := make([][]*cobra.Command, len(spans))
	other := make([]bool, len(spans))
	for i, s := range spans {
		words := strings.Fields(strings.TrimPrefix(strings.TrimSpace(s.text), "$ "))
		if len(words) == 0 || strings.HasPrefix(words[0], "--") || strings.HasPrefix(words[0], "#") {
			continue
		}
		if words[0] == "bench-bridge" || words[0] == "scripts/bench" {
			words = words[1:]
			owner[i] = []*cobra.Command{root}
		}
		if len(words) > 0 {
			if c := subcommand(root, words[0]); c != nil {
				if len(words) > 1 && subcommand(c, words[1]) != nil {
					c = subcommand(c, words[1]) // history add
				}
				owner[i] = []*cobra.Command{c}
			}
		}
		if owner[i] == nil {
			other[i] = true
			continue
		}
		named = append(named, owner[i]...)
	}
	var out []mention
	for _, loc := range flagToken.FindAllStringSubmatchIndex(u.text, -1) {
		m := mention{flag: u.text[loc[4]:loc[5]], after: u.text[loc[5]:]}
		inSpan := slices.IndexFunc(spans, func(s span) bool { return loc[4] >= s.start && loc[5] <= s.start+len(s.text) })
		switch {
		case inSpan >= 0 && other[inSpan]:
			m.other = true
		case inSpan >= 0 && owner[inSpan] != nil:
			m.cmds = owner[inSpan]
		default:
			m.cmds = named
		}
		out = append(out, m)
	}
	return out
}

// subcommand is root's command of that name, nil for none.
func subcommand(root *cobra.Command, name string) *cobra.Command {
	for _, c := range root.Commands() {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

// lookup finds the flag among cmds and their subcommands (every command of root when cmds is empty): the commands
// whose help shows it.
func lookup(root *cobra.Command, cmds []*cobra.Command, name string) []*pflag.Flag {
	if len(cmds) == 0 {
		cmds = []*cobra.Command{root}
	}
	var all []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	for _, c := range cmds {
		walk(c)
	}
	var out []*pflag.Flag
	for _, c := range all {
		c.InitDefaultHelpFlag() // cobra adds --help when a command runs
		if f := c.Flags().Lookup(name); f != nil && !f.Hidden {
			out = append(out, f)
		}
	}
	return out
}

// quotedDefault is "default" and a value soon after a flag: a value in a code span, or a number or a duration.
var quotedDefault = regexp.MustCompile("^[^.;]{0,80}?\\bdefault:?\\s+(?:`([^`]+)`|([0-9][^\\s,;)]*))")

// defaultQuoted is the value a unit quotes as the default of the flag whose text follows, "" for none: "default N"
// soon after the flag, with no other flag and no mention of the bench program in between (whose own defaults
// docs/protocol.md quotes).
func defaultQuoted(after string) string {
	m := quotedDefault.FindStringSubmatch(after)
	if m == nil || flagToken.MatchString(m[0]) || strings.Contains(m[0], "program") {
		return ""
	}
	return strings.TrimRight(m[1]+m[2], "./")
}

// sameDefault reports whether quoted is f's default: its DefValue, or what its usage says the default is.
func sameDefault(f *pflag.Flag, quoted string) bool {
	if quoted == f.DefValue {
		return true
	}
	if a, err := time.ParseDuration(quoted); err == nil {
		if b, err := time.ParseDuration(f.DefValue); err == nil && a == b {
			return true
		}
	}
	if _, usage, ok := strings.Cut(f.Usage, "(default"); ok {
		return strings.Contains(usage, quoted)
	}
	return false
}

// TestDocsQuoteTheFlagsOfTheCommands: every --flag quoted in README.md, docs/*.md and the commands' own help is a
// flag of the command the sentence (or the command line, or the code span) names, and every default quoted with it
// is the flag's default. A sentence of a command's help that names no command speaks of that command.
func TestDocsQuoteTheFlagsOfTheCommands(t *testing.T) {
	root := commandTree()
	pages := docPages(t)
	helpOf := map[string]*cobra.Command{}
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		if c.Name() == "check" {
			continue // its help lists the flags a bench program must honour, not its own
		}
		path := "bench-bridge " + c.Name() + " --help"
		pages[path], helpOf[path] = c.Long, c
	}
	for path, page := range pages {
		for _, u := range units(page) {
			for _, m := range mentions(root, u) {
				if m.other || slices.Contains(programFlags, m.flag) {
					continue
				}
				if c := helpOf[path]; c != nil && len(m.cmds) == 0 {
					m.cmds = []*cobra.Command{c}
				}
				flags := lookup(root, m.cmds, m.flag)
				if len(flags) == 0 {
					t.Errorf("%s:%d: --%s is not a flag of %s: %q", path, u.line, m.flag, names(root, m.cmds), clip(u.text))
					continue
				}
				quoted := defaultQuoted(m.after)
				if quoted != "" && !slices.ContainsFunc(flags, func(f *pflag.Flag) bool { return sameDefault(f, quoted) }) {
					t.Errorf("%s:%d: --%s quoted with default %s, but its default is %q (%s): %q", path, u.line, m.flag, quoted,
						flags[0].DefValue, names(root, m.cmds), clip(u.text))
				}
			}
		}
	}
}

func names(root *cobra.Command, cmds []*cobra.Command) string {
	if len(cmds) == 0 {
		return "any command"
	}
	var out []string
	for _, c := range cmds {
		if c == root {
			out = append(out, "bench-bridge")
		} else {
			out = append(out, c.Name())
		}
	}
	return strings.Join(out, ", ")
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "..."
	}
	return s
}

// TestDocsNameTheOutputFolders: what the commands write goes under DefaultOutDir unless told otherwise, and the docs
// say so: no default under docs/reports (where committed artifacts live), and compare's and profile's folders are
// quoted under DefaultOutDir (or as a bare file name, beside another).
func TestDocsNameTheOutputFolders(t *testing.T) {
	underReports := regexp.MustCompile(`\bdefault\b[^.,;()]{0,40}?docs/reports/`)
	outputs := regexp.MustCompile(`[\w./<>-]*(compare-TARGET|profile-<target>-<case>)`)
	for path, page := range docPages(t) {
		for _, u := range units(page) {
			if m := underReports.FindString(u.text); m != "" {
				t.Errorf("%s:%d: a default under docs/reports, where the commands write to %s/: %q", path, u.line, DefaultOutDir, clip(u.text))
			}
			for _, m := range outputs.FindAllString(u.text, -1) {
				if strings.Contains(m, "/") && !strings.HasPrefix(m, DefaultOutDir+"/") {
					t.Errorf("%s:%d: %s quoted outside %s/: %q", path, u.line, m, DefaultOutDir, clip(u.text))
				}
			}
		}
	}
}

// TestDocsGiveSSHTargetsAHost: a command line in the docs that measures, profiles or checks the webos target names
// its host, since webos has none without a config.
func TestDocsGiveSSHTargetsAHost(t *testing.T) {
	for path, page := range docPages(t) {
		for _, u := range units(page) {
			words := strings.Fields(strings.SplitN(u.text, "#", 2)[0])
			if u.code && len(words) > 0 && words[0] == "bench-bridge" && slices.Contains(words, "webos") && !slices.Contains(words, "--host") {
				t.Errorf("%s:%d: webos without --host: %q", path, u.line, u.text)
			}
		}
	}
}

// docRegion is a part of a page made by a command: a markdown table (`<!-- table: bench-bridge show --format
// markdown FILE... -->`) or what a 120-column terminal shows (`<!-- output: bench-bridge show ... -->`), closed by
// `<!-- end -->`.
var docRegion = regexp.MustCompile("(?s)<!-- (table|output): (bench-bridge [^\n]*?) -->\n(.*?)<!-- end -->")

// TestDocTables: every table and output the docs quote from committed artifacts is what the command in its marker
// prints today; scripts/doc-tables (-update-tables) rewrites them.
func TestDocTables(t *testing.T) {
	pages := docPages(t)
	t.Chdir("../..")
	found := 0
	for path, page := range pages {
		changed := docRegion.ReplaceAllStringFunc(page, func(region string) string {
			found++
			m := docRegion.FindStringSubmatch(region)
			kind, command := m[1], m[2]
			var out bytes.Buffer
			streams := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: io.Discard}
			if kind == "output" {
				streams.SetStdoutTTY(true, 120)
			}
			args := strings.Fields(command)[1:]
			if code := executeWith(&Factory{IO: streams}, args); code != 0 {
				t.Errorf("%s: %s: exit %d", path, command, code)
				return region
			}
			body := out.String()
			if kind == "output" {
				body = "```\n$ " + command + "\n" + body + "```\n"
			}
			want := fmt.Sprintf("<!-- %s: %s -->\n%s<!-- end -->", kind, command, body)
			if want != region && !*updateTables {
				t.Errorf("%s: the %s of %q is not what it prints today: run scripts/doc-tables", path, kind, command)
			}
			return want
		})
		if *updateTables && changed != page {
			if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if found == 0 {
		t.Fatal("no <!-- table: --> or <!-- output: --> region in the docs")
	}
}

// TestDocsListEveryConfigKey: docs/targets.md's reference has every key bench-bridge.toml may hold, as config's
// types declare them.
func TestDocsListEveryConfigKey(t *testing.T) {
	page := docPages(t)["docs/targets.md"]
	_, reference, ok := strings.Cut(page, "## The config file, every key")
	if !ok {
		t.Fatal("docs/targets.md has no section \"The config file, every key\"")
	}
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for typ.Kind() == reflect.Map || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || typ == reflect.TypeFor[config.Duration]() {
			return
		}
		for f := range typ.Fields() {
			key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if key == "" || key == "-" {
				continue
			}
			if !strings.Contains(reference, "`"+key+"`") && !strings.Contains(reference, "["+prefix+key) {
				t.Errorf("docs/targets.md does not list the config key %s%s", prefix, key)
			}
			walk(prefix+key+".", f.Type)
		}
	}
	walk("", reflect.TypeFor[config.Config]())
}

// TestDocsLinksResolve: every relative link in the docs names a file of the repository and, with #, a heading of
// that page (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens).
func TestDocsLinksResolve(t *testing.T) {
	pages := docPages(t)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading := regexp.MustCompile(`(?m)^#+ (.+)$`)
	anchor := func(h string) string {
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ' || r == '-':
				b.WriteRune('-')
			case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	for path, page := range pages {
		for _, m := range link.FindAllStringSubmatch(page, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			resolved := path
			if file != "" {
				resolved = filepath.Join(filepath.Dir(path), file)
			}
			if _, err := os.Stat(filepath.Join("../..", resolved)); err != nil {
				t.Errorf("%s: link %s: no %s", path, target, resolved)
				continue
			}
			if frag == "" {
				continue
			}
			text, ok := pages[filepath.ToSlash(resolved)]
			if !ok {
				continue // a link into a file that is not a page of the docs
			}
			found := false
			for _, h := range heading.FindAllStringSubmatch(text, -1) {
				found = found || anchor(h[1]) == frag
			}
			if !found {
				t.Errorf("%s: link %s: %s has no heading #%s", path, target, resolved, frag)
			}
		}
	}
}
