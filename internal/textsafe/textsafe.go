// Package textsafe makes text that came from devices and programs safe to show: no control characters reach a
// terminal (an escape sequence in an artifact could retitle or clear it), and markdown cells stay one cell.
package textsafe

import (
	"strings"
	"unicode"
)

// Line returns s with every control character removed, so that it prints as one line of plain text: tabs and line
// breaks become spaces, other C0 and C1 controls (ESC, BEL, DEL, CSI) and the bidirectional overrides that reorder
// what a terminal shows are dropped. Invalid UTF-8 becomes U+FFFD.
func Line(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case unicode.IsControl(r) || isBidi(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Lines is Line for text of several lines: the line breaks stay, everything else is as Line makes it.
func Lines(s string) string {
	parts := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, p := range parts {
		parts[i] = Line(p)
	}
	return strings.Join(parts, "\n")
}

// MarkdownCell returns s as the text of one markdown table cell: Line's cleaning, and each "|" escaped so that it
// cannot end the cell.
func MarkdownCell(s string) string {
	return strings.ReplaceAll(Line(s), "|", `\|`)
}

// plain reports whether s is printable ASCII throughout, the common case, which needs no copy.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// isBidi reports whether r is one of the bidirectional embedding, override or isolate controls (Trojan Source).
func isBidi(r rune) bool {
	return (r >= '\u202A' && r <= '\u202E') || (r >= '\u2066' && r <= '\u2069') || r == '\u200E' || r == '\u200F' || r == '\u061C'
}
