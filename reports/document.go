package reports

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/bench-bridge/bench-bridge/internal/textsafe"
)

// Document is what show, gate and compare print for people: sections of one table each, with the lines around
// them. One set of renderers writes it as text for a terminal or markdown for a CI job summary. Every string in it
// may come from an artifact, and so from a device: the renderers clean each one (internal/textsafe).
type Document struct {
	// Summary is the verdict of the whole: markdown opens with it as a heading, marked ok or failed; text closes
	// with it. Empty for none.
	Summary string
	Failed  bool
	// Sections are the tables, in order.
	Sections []Section
	// Notes follow every section.
	Notes []string
}

// Section is one table with its title, its columns and the lines under it.
type Section struct {
	// Title and Intro head the section: in text one line "Title: Intro", in markdown a heading and a paragraph.
	// A section with a title is indented in text, under it.
	Title, Intro string
	Columns      []Heading
	Rows         [][]Entry
	// Paragraph is a line of its own under the table.
	Paragraph string
	// Footer are the section's notes: lines in text, a list in markdown.
	Footer []string
}

// Heading is one column of a section's table: its name, and whether its cells align right (numbers).
type Heading struct {
	Name  string
	Right bool
}

// Entry is one cell; Strong marks what markdown sets in bold (a failing verdict). Markdown sets the first cell of
// every row, a case's name, as code.
type Entry struct {
	Text   string
	Strong bool
}

// Entries makes a row of plain cells.
func Entries(texts ...string) []Entry {
	row := make([]Entry, len(texts))
	for i, t := range texts {
		row[i] = Entry{Text: t}
	}
	return row
}

// Join is the documents one after another, as one: their sections and notes in order, the last summary that
// has one, failed when any failed.
func Join(docs ...*Document) *Document {
	out := &Document{}
	for _, d := range docs {
		out.Sections = append(out.Sections, d.Sections...)
		out.Notes = append(out.Notes, d.Notes...)
		out.Failed = out.Failed || d.Failed
		if d.Summary != "" {
			out.Summary = d.Summary
		}
	}
	return out
}

// DocumentFormats are the formats a document renders to.
var DocumentFormats = []string{"text", "markdown"}

// Render writes d in format: text or markdown.
func (d *Document) Render(w io.Writer, format string) error {
	var b strings.Builder
	switch format {
	case "text":
		d.text(&b)
	case "markdown":
		d.markdown(&b)
	default:
		return fmt.Errorf("unknown format %q (have %s)", format, strings.Join(DocumentFormats, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (d *Document) text(b *strings.Builder) {
	for i, s := range d.Sections {
		if i > 0 {
			b.WriteString("\n")
		}
		s.text(b)
	}
	if len(d.Notes) > 0 || d.Summary != "" {
		if len(d.Sections) > 0 {
			b.WriteString("\n")
		}
		for _, n := range d.Notes {
			line(b, "", textsafe.Line(n))
		}
		if d.Summary != "" {
			line(b, "", textsafe.Line(d.Summary))
		}
	}
}

func (s *Section) text(b *strings.Builder) {
	indent := ""
	if s.Title != "" {
		head := s.Title
		if s.Intro != "" {
			head += ": " + s.Intro
		}
		line(b, "", textsafe.Line(head))
		indent = "  "
	}
	header := make([]Entry, len(s.Columns))
	for i, c := range s.Columns {
		header[i] = Entry{Text: c.Name}
	}
	rows := append([][]Entry{header}, s.Rows...)
	width := make([]int, len(s.Columns))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(textsafe.Line(c.Text)))
		}
	}
	for _, row := range rows {
		var l strings.Builder
		for i, c := range row {
			text := textsafe.Line(c.Text)
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(text))
			if i > 0 {
				l.WriteString("  ")
			}
			if s.Columns[i].Right {
				l.WriteString(pad + text)
			} else {
				l.WriteString(text + pad)
			}
		}
		line(b, indent, strings.TrimRight(l.String(), " "))
	}
	if s.Paragraph != "" {
		b.WriteString("\n")
		line(b, indent, textsafe.Line(s.Paragraph))
	}
	if len(s.Footer) > 0 {
		b.WriteString("\n")
		for _, f := range s.Footer {
			line(b, indent, textsafe.Line(f))
		}
	}
}

func (d *Document) markdown(b *strings.Builder) {
	if d.Summary != "" {
		mark := "✅"
		if d.Failed {
			mark = "❌"
		}
		line(b, "", "## "+mark+" "+textsafe.Line(d.Summary))
		if len(d.Sections)+len(d.Notes) > 0 {
			b.WriteString("\n")
		}
	}
	for i, s := range d.Sections {
		if i > 0 {
			b.WriteString("\n")
		}
		s.markdown(b)
	}
	if len(d.Notes) > 0 {
		if len(d.Sections) > 0 {
			b.WriteString("\n")
		}
		for _, n := range d.Notes {
			line(b, "- ", textsafe.Line(n))
		}
	}
}

func (s *Section) markdown(b *strings.Builder) {
	if s.Title != "" {
		line(b, "### ", textsafe.Line(s.Title))
		b.WriteString("\n")
		if s.Intro != "" {
			line(b, "", textsafe.Line(s.Intro))
			b.WriteString("\n")
		}
	}
	header := make([]string, len(s.Columns))
	align := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		header[i], align[i] = textsafe.MarkdownCell(c.Name), "---"
		if c.Right {
			align[i] = "---:"
		}
	}
	line(b, "", "| "+strings.Join(header, " | ")+" |")
	line(b, "", "|"+strings.Join(align, "|")+"|")
	for _, row := range s.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = textsafe.MarkdownCell(c.Text)
			switch {
			case i == 0:
				cells[i] = "`" + cells[i] + "`"
			case c.Strong && cells[i] != "":
				cells[i] = "**" + cells[i] + "**"
			}
		}
		line(b, "", "| "+strings.Join(cells, " | ")+" |")
	}
	if s.Paragraph != "" {
		b.WriteString("\n")
		line(b, "", textsafe.Line(s.Paragraph))
	}
	if len(s.Footer) > 0 {
		b.WriteString("\n")
		for _, f := range s.Footer {
			line(b, "- ", textsafe.Line(f))
		}
	}
}

// line writes one line with its prefix.
func line(b *strings.Builder, prefix, text string) {
	b.WriteString(prefix)
	b.WriteString(text)
	b.WriteString("\n")
}
