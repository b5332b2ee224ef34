package cases

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The fields of one BB_CASE entry of cases.def, in order.
const (
	fieldName = iota
	fieldCrossing
	fieldUnitOps
	fieldBytes
	fieldSetup
	fieldRun
	fieldScript
	fieldOp
	nFields
	// fieldWhy is the last field of a BB_CASE_TYPED_ARRAYS entry: why an engine without typed arrays lacks the case.
	fieldWhy = nFields
)

// The two forms of an entry: a case, and a case whose script needs typed arrays.
const (
	entryCase        = "BB_CASE("
	entryTypedArrays = "BB_CASE_TYPED_ARRAYS("
)

var (
	identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	number     = regexp.MustCompile(`^[0-9]+$`)
)

// ParseList reads a case list in cases.def's form: C comments, and one BB_CASE(name, crossing, unit_ops, bytes,
// setup, run, script, "op") per case, or BB_CASE_TYPED_ARRAYS(name, ..., "op", "why") for a case whose script needs
// typed arrays. Errors name file and line.
func ParseList(file, src string) ([]Case, error) {
	text, err := stripComments(file, src)
	if err != nil {
		return nil, err
	}
	var out []Case
	seen := map[string]bool{}
	for pos := 0; pos < len(text); {
		rest := strings.TrimLeft(text[pos:], " \t\r\n")
		if rest == "" {
			break
		}
		pos = len(text) - len(rest)
		line := 1 + strings.Count(text[:pos], "\n")
		entry := entryCase
		if strings.HasPrefix(rest, entryTypedArrays) {
			entry = entryTypedArrays
		} else if !strings.HasPrefix(rest, entryCase) {
			return nil, fmt.Errorf("%s:%d: want BB_CASE(...) or BB_CASE_TYPED_ARRAYS(...), found %q", file, line, firstLine(rest))
		}
		fields, n, err := splitArgs(rest[len(entry):])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, line, err)
		}
		pos += len(entry) + n
		c, err := caseOf(entry == entryTypedArrays, fields)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, line, err)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("%s:%d: case %s listed twice", file, line, c.Name)
		}
		seen[c.Name] = true
		out = append(out, c)
	}
	if len(out) == 0 || out[0].Name != RefCase || out[0].Crossing {
		return nil, fmt.Errorf("%s: the first case must be %s, which crosses nothing: every ratio is taken against it", file, RefCase)
	}
	return out, nil
}

// stripComments replaces /* ... */ comments by spaces, keeping the newlines so that lines still count.
func stripComments(file, src string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(src, "/*")
		if i < 0 {
			b.WriteString(src)
			return b.String(), nil
		}
		j := strings.Index(src[i+2:], "*/")
		if j < 0 {
			return "", fmt.Errorf("%s:%d: unterminated comment", file, 1+strings.Count(b.String()+src[:i], "\n"))
		}
		b.WriteString(src[:i])
		b.WriteString(strings.Repeat("\n", strings.Count(src[i:i+2+j+2], "\n")))
		src = src[i+2+j+2:]
	}
}

// splitArgs splits a macro's arguments at the commas outside parentheses and string literals, up to the closing
// parenthesis; it returns the trimmed arguments and how many bytes it read.
func splitArgs(s string) ([]string, int, error) {
	var args []string
	depth, start, inString := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			return nil, 0, fmt.Errorf("the op string may not hold escapes")
		case c == '"':
			inString = !inString
		case inString:
		case c == '(':
			depth++
		case c == ',' && depth == 0:
			args = append(args, strings.TrimSpace(s[start:i]))
			start = i + 1
		case c == ')' && depth > 0:
			depth--
		case c == ')':
			return append(args, strings.TrimSpace(s[start:i])), i + 1, nil
		}
	}
	return nil, 0, fmt.Errorf("BB_CASE( without its closing parenthesis")
}

// caseOf reads the fields of one entry, a BB_CASE_TYPED_ARRAYS one when typedArrays is set.
func caseOf(typedArrays bool, f []string) (Case, error) {
	switch {
	case typedArrays && len(f) != nFields+1:
		return Case{}, fmt.Errorf("BB_CASE_TYPED_ARRAYS has %d fields, want %d: name, crossing, unit_ops, bytes, setup, run, script, op, why", len(f), nFields+1)
	case !typedArrays && len(f) != nFields:
		return Case{}, fmt.Errorf("BB_CASE has %d fields, want %d: name, crossing, unit_ops, bytes, setup, run, script, op", len(f), nFields)
	}
	for _, i := range []int{fieldName, fieldSetup, fieldRun} {
		if !identifier.MatchString(f[i]) {
			return Case{}, fmt.Errorf("field %d is %q, want a C identifier", i+1, f[i])
		}
	}
	if f[fieldCrossing] != "0" && f[fieldCrossing] != "1" {
		return Case{}, fmt.Errorf("%s: crossing is %q, want 0 or 1", f[fieldName], f[fieldCrossing])
	}
	if !number.MatchString(f[fieldUnitOps]) || f[fieldUnitOps] == "0" || !number.MatchString(f[fieldBytes]) {
		return Case{}, fmt.Errorf("%s: unit_ops %q and bytes %q must be decimal numbers, unit_ops at least 1", f[fieldName], f[fieldUnitOps], f[fieldBytes])
	}
	op := f[fieldOp]
	if !stringLiteral(op) {
		return Case{}, fmt.Errorf("%s: op is %s, want one string literal", f[fieldName], op)
	}
	if typedArrays && !stringLiteral(f[fieldWhy]) {
		return Case{}, fmt.Errorf("%s: why is %s, want one string literal", f[fieldName], f[fieldWhy])
	}
	if f[fieldScript] == "" {
		return Case{}, fmt.Errorf("%s: no script", f[fieldName])
	}
	unitOps, err1 := strconv.Atoi(f[fieldUnitOps])
	bytes, err2 := strconv.Atoi(f[fieldBytes])
	if err1 != nil || err2 != nil {
		return Case{}, fmt.Errorf("%s: unit_ops or bytes out of range", f[fieldName])
	}
	return Case{Name: f[fieldName], Op: op[1 : len(op)-1], Crossing: f[fieldCrossing] == "1", UnitOps: unitOps, Bytes: bytes,
		TypedArrays: typedArrays}, nil
}

// stringLiteral says whether s is one non-empty C string literal (splitArgs has refused escapes).
func stringLiteral(s string) bool {
	return len(s) >= 3 && s[0] == '"' && s[len(s)-1] == '"' && !strings.Contains(s[1:len(s)-1], `"`)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
