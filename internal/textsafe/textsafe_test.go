package textsafe

import (
	"strings"
	"testing"
	"unicode"
)

// hostile is an OSC that retitles the terminal, ended by BEL, then a CSI that clears it.
const hostile = "\x1b]0;owned-title\x07\x1b[2J"

func TestLineDropsControls(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":                 "plain text",
		hostile + "ok":               "]0;owned-title[2Jok",
		"two\nlines\r\tand tab":      "two lines  and tab",
		"c1 \u009b31m csi":           "c1 31m csi",
		"del\x7f":                    "del",
		"bidi \u202eevil\u202c":      "bidi evil",
		"invalid \xff byte":          "invalid \uFFFD byte",
		"unicode stays: µs ×ref ±3%": "unicode stays: µs ×ref ±3%",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLinesKeepsBreaks(t *testing.T) {
	if got, want := Lines("a\x1b[2J\r\nb"+hostile), "a[2J\nb]0;owned-title[2J"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
}

func TestMarkdownCell(t *testing.T) {
	if got, want := MarkdownCell("a | b\nc"), `a \| b c`; got != want {
		t.Errorf("MarkdownCell = %q, want %q", got, want)
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{hostile, "a|b\nc", "\u202e", "\xff\xfe", "\x00", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Line(s) {
			if unicode.IsControl(r) || isBidi(r) {
				t.Fatalf("Line(%q) keeps control %U", s, r)
			}
		}
		m := MarkdownCell(s)
		if strings.Contains(strings.ReplaceAll(m, `\|`, ""), "|") || strings.ContainsAny(m, "\n\r") {
			t.Fatalf("MarkdownCell(%q) = %q: an unescaped | or a line break", s, m)
		}
		if Line(Line(s)) != Line(s) {
			t.Fatalf("Line is not idempotent on %q", s)
		}
	})
}
