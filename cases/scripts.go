package cases

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	benchbridge "github.com/bench-bridge/bench-bridge"
)

// Scripts are the cases' JavaScript as the C programs evaluate it, read from the embedded harness.c so that what
// `bench-bridge cases --script` prints and docs/bridge.md shows cannot drift from what is measured.
type Scripts struct {
	// Prelude is evaluated before every case's script (it defines expect).
	Prelude string
	// ByCase maps a case name to its script.
	ByCase map[string]string
}

var (
	scriptsOnce sync.Once
	scripts     *Scripts
	scriptsErr  error
)

// LoadScripts reads the scripts from harness.c, once.
func LoadScripts() (*Scripts, error) {
	scriptsOnce.Do(func() {
		src, err := benchbridge.CSources.ReadFile(benchbridge.Harness)
		if err != nil {
			scriptsErr = err
			return
		}
		scripts, scriptsErr = parseScripts(string(src))
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
	arrayDecl  = regexp.MustCompile(`(?m)^static const char (js_\w+)\[\] =`)
	macroDecl  = regexp.MustCompile(`(?m)^#define (JS_\w+)\((\w+)\)`)
	tableEntry = regexp.MustCompile(`\{"(\w+)", (js_\w+|(JS_\w+)\((\w+)\))\}`)
	hostCall   = regexp.MustCompile(`\b(host_\w+|set_prop|apply_ops)\(`)
	definedFn  = regexp.MustCompile(`(?m)^function (\w+)\(([^)]*)\)`)
)

// parseScripts reads the string arrays, the string macros and the name -> script table of harness.c.
func parseScripts(src string) (*Scripts, error) {
	arrays := map[string]string{}
	for _, m := range arrayDecl.FindAllStringSubmatchIndex(src, -1) {
		name := src[m[2]:m[3]]
		text, err := cStrings(src[m[1]:], ";", "", "")
		if err != nil {
			return nil, fmt.Errorf("harness.c: %s: %w", name, err)
		}
		arrays[name] = text
	}
	macros := map[string][2]string{} // name -> parameter, body
	for _, m := range macroDecl.FindAllStringSubmatchIndex(src, -1) {
		body := src[m[1]:]
		end := 0
		for _, line := range strings.SplitAfter(body, "\n") {
			end += len(line)
			if !strings.HasSuffix(strings.TrimRight(line, "\n"), "\\") {
				break
			}
		}
		macros[src[m[2]:m[3]]] = [2]string{src[m[4]:m[5]], strings.ReplaceAll(body[:end], "\\\n", "\n")}
	}
	s := &Scripts{Prelude: arrays["js_prelude"], ByCase: map[string]string{}}
	for _, m := range tableEntry.FindAllStringSubmatch(src, -1) {
		switch {
		case m[3] != "":
			mac, ok := macros[m[3]]
			if !ok {
				return nil, fmt.Errorf("harness.c: case %s: no macro %s", m[1], m[3])
			}
			text, err := cStrings(mac[1], "", mac[0], m[4])
			if err != nil {
				return nil, fmt.Errorf("harness.c: %s: %w", m[3], err)
			}
			s.ByCase[m[1]] = text
		default:
			text, ok := arrays[m[2]]
			if !ok {
				return nil, fmt.Errorf("harness.c: case %s: no array %s", m[1], m[2])
			}
			s.ByCase[m[1]] = text
		}
	}
	if s.Prelude == "" || len(s.ByCase) == 0 {
		return nil, fmt.Errorf("harness.c: found no case scripts")
	}
	return s, nil
}

// cStrings concatenates the C string literals of src up to stop (a token outside strings; "" for the end), with
// #param replaced by arg's text (the stringification of a macro argument).
func cStrings(src, stop, param, arg string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case stop != "" && strings.HasPrefix(src[i:], stop):
			return b.String(), nil
		case c == '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
					switch src[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case '\\', '"', '\'':
						b.WriteByte(src[j])
					default:
						return "", fmt.Errorf("unsupported escape \\%c", src[j])
					}
					continue
				}
				b.WriteByte(src[j])
			}
			i = j + 1
		case c == '#' && param != "" && strings.HasPrefix(src[i+1:], param):
			b.WriteString(arg)
			i += 1 + len(param)
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i:], "*/")
			if end < 0 {
				return "", fmt.Errorf("unterminated comment")
			}
			i += end + 2
		default:
			i++
		}
	}
	if stop != "" {
		return "", fmt.Errorf("no %q after the strings", stop)
	}
	return b.String(), nil
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

// DefinedFunctions lists the top-level functions a script defines, with their parameters ("bench(n)").
func DefinedFunctions(script string) []string {
	var out []string
	for _, m := range definedFn.FindAllStringSubmatch(script, -1) {
		if m[1] == "mkstr" || m[1] == "utf8len" {
			continue // helpers of the string cases, not called by the host
		}
		out = append(out, m[1]+"("+m[2]+")")
	}
	return out
}
