package config

import "strings"

// keyLines maps each dotted key and table header of a TOML file to the line it is first written on. The TOML library
// keeps its positions to itself, so the file is scanned once more for them; this only has to find lines for
// messages, not to parse TOML.
type keyLines map[string]int

// of returns the line of key, or of the nearest table that holds it, or 0.
func (k keyLines) of(key string) int {
	for key != "" {
		if l, ok := k[key]; ok {
			return l
		}
		i := strings.LastIndex(key, ".")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return 0
}

func findKeyLines(text string) keyLines {
	lines := keyLines{}
	table := ""
	inMultiline := ""
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		line = strings.TrimSpace(line)
		if inMultiline != "" {
			if strings.Contains(line, inMultiline) {
				inMultiline = ""
			}
			continue
		}
		switch {
		case line == "" || line[0] == '#':
			continue
		case strings.HasPrefix(line, "["):
			name := strings.Trim(strings.SplitN(line, "]", 2)[0], "[ ")
			table = joinKey(name)
			if _, ok := lines[table]; !ok {
				lines[table] = n
			}
			continue
		}
		eq := strings.Index(line, "=")
		if eq < 0 {
			continue
		}
		key := joinKey(line[:eq])
		if table != "" {
			key = table + "." + key
		}
		if _, ok := lines[key]; !ok {
			lines[key] = n
		}
		for _, q := range []string{`"""`, "'''"} {
			if strings.Count(line[eq:], q) == 1 {
				inMultiline = q
			}
		}
	}
	return lines
}

// joinKey normalises a written key (`a . "b"`) to its dotted form (a.b).
func joinKey(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
