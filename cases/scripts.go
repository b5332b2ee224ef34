package cases

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	benchbridge "github.com/bench-bridge/bench-bridge"
)

// Scripts are the cases' JavaScript as the C programs evaluate it, read from the embedded harness_scripts.c so that
// what `bench-bridge cases --script` prints and docs/bridge.md shows cannot drift from what is measured.
type Scripts struct {
	// Prelude is evaluated before every case's script (it defines expect).
	Prelude string
	// ByCase maps a case name to its script.
	ByCase map[string]string
	// Bytes maps a case with a string to its length in UTF-8 bytes: the script's global N.
	Bytes map[string]int
}

var (
	scriptsOnce sync.Once
	scripts     *Scripts
	scriptsErr  error
)

// scriptsFile names the C file of the scripts in errors.
var scriptsFile = path.Base(benchbridge.HarnessScripts)

// LoadScripts reads the scripts from harness_scripts.c and the case list, once.
func LoadScripts() (*Scripts, error) {
	scriptsOnce.Do(func() {
		src, err := benchbridge.CSources.ReadFile(benchbridge.HarnessScripts)
		if err != nil {
			scriptsErr = err
			return
		}
		list, err := benchbridge.CSources.ReadFile(benchbridge.CaseList)
		if err != nil {
			scriptsErr = err
			return
		}
		scripts, scriptsErr = parseScripts(string(src), string(list))
	})
	return scripts, scriptsErr
}

// Script returns one case's JavaScript.
func Script(name string) (string, error) {
	s, err := LoadScripts()
	if err != nil {
		return "", err
	}
	js, ok := s.ByCase[name]
	if !ok {
		return "", fmt.Errorf("unknown case %q (bench-bridge cases lists them)", name)
	}
	return js, nil
}

var (
	arrayDecl  = regexp.MustCompile(`(?m)^static const char (\w+)\[\] =`)
	macroDecl  = regexp.MustCompile(`(?m)^#define (JS_\w+)(\(([\w, ]*)\))?[ \t]`)
	tableEntry = regexp.MustCompile(`\{"(\w+)", ([^}]+)\}`)
	listEntry  = regexp.MustCompile(`(?m)^BB_CASE(?:_TYPED_ARRAYS)?\((\w+), *\d+, *\d+, *(\d+), *\w+, *\w+, *(\w+),`)
	hostCall   = regexp.MustCompile(`\b(host_\w+|set_\w+|apply_\w+)\(`)
	definedFn  = regexp.MustCompile(`(?m)^function (\w+)\(([^)]*)\)`)
)

// parseScripts reads the string arrays and string macros of the scripts' C source and the name -> script table:
// cases.def's BB_CASE lines when list is not empty, else a table of {"name", script} entries in src.
func parseScripts(src, list string) (*Scripts, error) {
	p := &strPreprocessor{arrays: map[string][]token{}, macros: map[string]macro{}}
	for _, m := range arrayDecl.FindAllStringSubmatchIndex(src, -1) {
		end := strings.Index(src[m[1]:], ";\n")
		if end < 0 {
			return nil, fmt.Errorf("%s: %s has no end", scriptsFile, src[m[2]:m[3]])
		}
		toks, err := tokenize(src[m[1] : m[1]+end])
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", scriptsFile, src[m[2]:m[3]], err)
		}
		p.arrays[src[m[2]:m[3]]] = toks
	}
	for _, m := range macroDecl.FindAllStringSubmatchIndex(src, -1) {
		body := src[m[1]:]
		end := 0
		for _, line := range strings.SplitAfter(body, "\n") {
			end += len(line)
			if !strings.HasSuffix(strings.TrimRight(line, "\n"), "\\") {
				break
			}
		}
		toks, err := tokenize(body[:end])
		if err != nil {
			return nil, fmt.Errorf("%s: macro %s: %w", scriptsFile, src[m[2]:m[3]], err)
		}
		mac := macro{body: toks, function: m[4] >= 0}
		if m[6] >= 0 {
			for _, param := range strings.Split(src[m[6]:m[7]], ",") {
				mac.params = append(mac.params, strings.TrimSpace(param))
			}
		}
		p.macros[src[m[2]:m[3]]] = mac
	}
	prelude, err := p.expandText("js_prelude")
	if err != nil {
		return nil, err
	}
	s := &Scripts{Prelude: prelude, ByCase: map[string]string{}, Bytes: map[string]int{}}
	type entry struct{ name, expr string }
	var entries []entry
	if list != "" {
		for _, m := range listEntry.FindAllStringSubmatch(list, -1) {
			entries = append(entries, entry{m[1], m[3]})
			if n, _ := strconv.Atoi(m[2]); n > 0 {
				s.Bytes[m[1]] = n
			}
		}
	} else if start := strings.Index(src, "scripts[] = {"); start >= 0 {
		table := src[start:]
		if end := strings.Index(table, "};"); end >= 0 {
			table = table[:end]
		}
		for _, m := range tableEntry.FindAllStringSubmatch(table, -1) {
			entries = append(entries, entry{m[1], m[2]})
		}
	}
	for _, e := range entries {
		js, err := p.expandText(e.expr)
		if err != nil {
			return nil, fmt.Errorf("%s: the script of %s: %w", scriptsFile, e.name, err)
		}
		s.ByCase[e.name] = js
	}
	if len(s.ByCase) == 0 {
		return nil, fmt.Errorf("%s: found no case scripts", scriptsFile)
	}
	return s, nil
}

// HostFunctions lists the host functions a script calls, sorted.
func HostFunctions(script string) []string {
	seen := map[string]bool{}
	for _, m := range hostCall.FindAllStringSubmatch(script, -1) {
		seen[m[1]] = true
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DefinedFunctions lists the top-level functions a script defines, with their parameters ("bench(n)"), leaving out
// the helpers of the string cases, which the host does not call.
func DefinedFunctions(script string) []string {
	var out []string
	for _, m := range definedFn.FindAllStringSubmatch(script, -1) {
		if m[1] == "mkstr" || m[1] == "utf8len" {
			continue
		}
		out = append(out, m[1]+"("+m[2]+")")
	}
	return out
}
