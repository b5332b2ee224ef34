package cases

import (
	"fmt"
	"strings"
)

// A small C preprocessor for string literals: enough to read the case scripts out of harness_scripts.c, which builds
// them from string literals, string arrays and macros (with parameters and #stringification) that expand to strings.

type tokenKind int

const (
	tokString tokenKind = iota // a string literal, decoded
	tokIdent                   // an identifier or a number
	tokPunct                   // ( ) , #
)

type token struct {
	kind tokenKind
	text string
}

type macro struct {
	function bool
	params   []string
	body     []token
}

// tokenize splits C source into string literals, identifiers and the punctuation macros use, skipping comments and
// line continuations.
func tokenize(src string) ([]token, error) {
	var toks []token
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"':
			s, n, err := cString(src[i:])
			if err != nil {
				return nil, err
			}
			toks, i = append(toks, token{tokString, s}), i+n
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated comment")
			}
			i += end + 4
		case isIdent(c):
			j := i
			for j < len(src) && isIdent(src[j]) {
				j++
			}
			toks, i = append(toks, token{tokIdent, src[i:j]}), j
		case strings.ContainsRune("(),#", rune(c)):
			toks, i = append(toks, token{tokPunct, string(c)}), i+1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\':
			i++
		default:
			return nil, fmt.Errorf("unexpected %q in a string expression", c)
		}
	}
	return toks, nil
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// cString decodes the string literal at the start of s and returns it with the length it spans.
func cString(s string) (string, int, error) {
	var b strings.Builder
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '"':
			return b.String(), j + 1, nil
		case '\\':
			j++
			if j == len(s) {
				break
			}
			esc, ok := map[byte]byte{'n': '\n', 't': '\t', '\\': '\\', '"': '"', '\'': '\''}[s[j]]
			if !ok {
				return "", 0, fmt.Errorf("unsupported escape \\%c", s[j])
			}
			b.WriteByte(esc)
		default:
			b.WriteByte(s[j])
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

// strPreprocessor expands string expressions over harness_scripts.c's string arrays and macros.
type strPreprocessor struct {
	arrays map[string][]token
	macros map[string]macro
}

// expandText expands a C expression (an array's name, a macro call) to the string it makes.
func (p *strPreprocessor) expandText(expr string) (string, error) {
	toks, err := tokenize(expr)
	if err != nil {
		return "", err
	}
	return p.expand(toks, 0)
}

func (p *strPreprocessor) expand(toks []token, depth int) (string, error) {
	if depth > 16 {
		return "", fmt.Errorf("macros nested too deep")
	}
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tokString:
			b.WriteString(t.text)
		case t.kind == tokIdent && p.arrays[t.text] != nil:
			s, err := p.expand(p.arrays[t.text], depth+1)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		case t.kind == tokIdent && p.macros[t.text].body != nil:
			mac := p.macros[t.text]
			body := mac.body
			if mac.function {
				args, n, err := macroArgs(toks[i+1:])
				if err != nil {
					return "", fmt.Errorf("%s: %w", t.text, err)
				}
				body, i = substitute(mac, args), i+n
			}
			s, err := p.expand(body, depth+1)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		default:
			return "", fmt.Errorf("%q is not a string, a string array or a string macro", t.text)
		}
	}
	return b.String(), nil
}

// macroArgs reads a macro call's arguments from toks, which start at its "(", and returns them with the tokens
// they span.
func macroArgs(toks []token) ([][]token, int, error) {
	if len(toks) == 0 || toks[0].text != "(" {
		return nil, 0, fmt.Errorf("a function-like macro without arguments")
	}
	var args [][]token
	var cur []token
	depth := 0
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tokPunct && t.text == "(":
			depth++
		case t.kind == tokPunct && t.text == ")" && depth > 0:
			depth--
		case t.kind == tokPunct && t.text == ")":
			return append(args, cur), i + 1, nil
		case t.kind == tokPunct && t.text == "," && depth == 0:
			args, cur = append(args, cur), nil
			continue
		}
		cur = append(cur, t)
	}
	return nil, 0, fmt.Errorf("unterminated arguments")
}

// substitute puts the arguments into a macro's body: a parameter by its argument, #parameter by its text.
func substitute(mac macro, args [][]token) []token {
	arg := func(name string) ([]token, bool) {
		for k, p := range mac.params {
			if p == name && k < len(args) {
				return args[k], true
			}
		}
		return nil, false
	}
	var out []token
	for i := 0; i < len(mac.body); i++ {
		t := mac.body[i]
		if t.kind == tokPunct && t.text == "#" && i+1 < len(mac.body) {
			if a, ok := arg(mac.body[i+1].text); ok {
				var text []string
				for _, at := range a {
					text = append(text, at.text)
				}
				out, i = append(out, token{tokString, strings.Join(text, " ")}), i+1
				continue
			}
		}
		if a, ok := arg(t.text); ok && t.kind == tokIdent {
			out = append(out, a...)
			continue
		}
		out = append(out, t)
	}
	return out
}
