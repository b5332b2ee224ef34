package reports

import (
	"fmt"
	"io"
	"slices"
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
	// width is the terminal's, once Fit has made the text fit it: 0 prints every table as it is, one line a row.
	width int
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
	// Group and Short are the heading in a table fitted to a terminal (Fit): Short under Group, which is written
	// once above the run of columns that share it. An empty Short keeps Name.
	Group, Short string
	// Drop is the order in which Fit leaves the column out when the table is too wide, the highest first, every
	// column of one rank together; 0 keeps it.
	Drop int
	// Key names the kind of column, for Keep: one key for the same numbers of every artifact. Empty: always kept.
	Key string
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
		s.text(b, d.width)
	}
	if len(d.Notes) > 0 || d.Summary != "" {
		if len(d.Sections) > 0 {
			b.WriteString("\n")
		}
		for _, n := range d.Notes {
			prose(b, "", textsafe.Line(n), d.width)
		}
		if d.Summary != "" {
			prose(b, "", textsafe.Line(d.Summary), d.width)
		}
	}
}

// Fit makes d's text fit a terminal of width columns: each table takes its compact headings (Heading.Group above
// Heading.Short) and leaves out columns by their Drop rank until its lines fit or nothing is left to drop, and prose
// wraps at the width. It returns the names of the columns left out, each once. Fit is for text: markdown shows what
// is left.
func (d *Document) Fit(width int) []string {
	d.width = width
	var left []string
	for i := range d.Sections {
		for _, name := range d.Sections[i].fit(width) {
			if !slices.Contains(left, name) {
				left = append(left, name)
			}
		}
	}
	return left
}

// Keep leaves in every table only the columns whose Key is one of keys, and those without a key. The first column
// left of each group is named with the group (in full, the column that did was perhaps left out).
func (d *Document) Keep(keys []string) {
	for i := range d.Sections {
		s := &d.Sections[i]
		s.remove(func(h Heading) bool { return h.Key != "" && !slices.Contains(keys, h.Key) })
		for _, g := range s.groups() {
			if first := &s.Columns[g.from]; !strings.Contains(first.Name, g.label) {
				first.Name = g.label + " " + first.Name
			}
		}
	}
}

// fit takes the compact headings and leaves out columns, the highest Drop rank first, until the table fits width.
func (s *Section) fit(width int) []string {
	for i := range s.Columns {
		if s.Columns[i].Short != "" {
			s.Columns[i].Name = s.Columns[i].Short
		}
	}
	var left []string
	for s.tableWidth(true) > width {
		rank := 0
		for _, c := range s.Columns {
			rank = max(rank, c.Drop)
		}
		if rank == 0 {
			break
		}
		for _, name := range s.remove(func(h Heading) bool { return h.Drop == rank }) {
			if !slices.Contains(left, name) {
				left = append(left, name)
			}
		}
	}
	return left
}

// remove takes the columns out for which drop holds, with their cells, and returns their names.
func (s *Section) remove(drop func(Heading) bool) []string {
	var cols []Heading
	var names []string
	for _, c := range s.Columns {
		if drop(c) {
			names = append(names, c.Name)
		} else {
			cols = append(cols, c)
		}
	}
	for r, row := range s.Rows {
		var cells []Entry
		for i, c := range row {
			if !drop(s.Columns[i]) {
				cells = append(cells, c)
			}
		}
		s.Rows[r] = cells
	}
	s.Columns = cols
	return names
}

// indent is what a section's lines start with: two spaces under a title.
func (s *Section) indent() string {
	if s.Title != "" {
		return "  "
	}
	return ""
}

// widths are the columns' widths in text: the widest of each column's heading and cells and, with groups, wide
// enough together for their group's label.
func (s *Section) widths(groups bool) []int {
	width := make([]int, len(s.Columns))
	for i, c := range s.Columns {
		width[i] = runes(textsafe.Line(c.Name))
	}
	for _, row := range s.Rows {
		for i, c := range row {
			width[i] = max(width[i], runes(textsafe.Line(c.Text)))
		}
	}
	if groups {
		for _, g := range s.groups() {
			if need := runes(textsafe.Line(g.label)) + 4; spanWidth(width[g.from:g.to]) < need {
				width[g.to-1] += need - spanWidth(width[g.from:g.to])
			}
		}
	}
	return width
}

// tableWidth is the width of the table's widest line.
func (s *Section) tableWidth(groups bool) int {
	return runes(s.indent()) + spanWidth(s.widths(groups))
}

// group is a run of columns [from, to) that share a Heading.Group.
type group struct {
	label    string
	from, to int
}

func (s *Section) groups() []group {
	var out []group
	for i, c := range s.Columns {
		switch {
		case c.Group == "":
		case len(out) > 0 && out[len(out)-1].to == i && out[len(out)-1].label == c.Group:
			out[len(out)-1].to = i + 1
		default:
			out = append(out, group{c.Group, i, i + 1})
		}
	}
	return out
}

// spanWidth is the width of columns of these widths side by side, two spaces apart.
func spanWidth(widths []int) int {
	w := 2 * max(len(widths)-1, 0)
	for _, x := range widths {
		w += x
	}
	return w
}

func runes(s string) int { return utf8.RuneCountInString(s) }

func (s *Section) text(b *strings.Builder, width int) {
	indent := s.indent()
	if s.Title != "" {
		head := s.Title
		if s.Intro != "" {
			head += ": " + s.Intro
		}
		prose(b, "", textsafe.Line(head), width)
	}
	groups := width > 0 && len(s.groups()) > 0
	widths := s.widths(groups)
	if groups {
		line(b, indent, strings.TrimRight(s.groupLine(widths), " "))
	}
	header := make([]Entry, len(s.Columns))
	for i, c := range s.Columns {
		header[i] = Entry{Text: c.Name}
	}
	for _, row := range append([][]Entry{header}, s.Rows...) {
		var l strings.Builder
		for i, c := range row {
			text := textsafe.Line(c.Text)
			pad := strings.Repeat(" ", widths[i]-runes(text))
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
		prose(b, indent, textsafe.Line(s.Paragraph), width)
	}
	if len(s.Footer) > 0 {
		b.WriteString("\n")
		for _, f := range s.Footer {
			prose(b, indent, textsafe.Line(f), width)
		}
	}
}

// groupLine is the line above the headings: each group's label centred in a rule over its columns.
func (s *Section) groupLine(widths []int) string {
	var l strings.Builder
	groups := s.groups()
	for i := 0; i < len(widths); {
		if i > 0 {
			l.WriteString("  ")
		}
		at := slices.IndexFunc(groups, func(g group) bool { return g.from == i })
		if at < 0 {
			l.WriteString(strings.Repeat(" ", widths[i]))
			i++
			continue
		}
		g := groups[at]
		label := " " + textsafe.Line(g.label) + " "
		rule := spanWidth(widths[g.from:g.to]) - runes(label)
		l.WriteString(strings.Repeat("─", rule/2) + label + strings.Repeat("─", rule-rule/2))
		i = g.to
	}
	return l.String()
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

// prose writes text after prefix, wrapped between words into lines of at most width runes (0: one line), the lines
// after the first indented by two more spaces. A word longer than the width gets a line of its own.
func prose(b *strings.Builder, prefix, text string, width int) {
	if width <= 0 || runes(prefix+text) <= width {
		line(b, prefix, text)
		return
	}
	cur, n := prefix, 0
	for _, word := range strings.Fields(text) {
		if n > 0 && runes(cur)+1+runes(word) > width {
			line(b, "", cur)
			cur, n = prefix+"  ", 0
		}
		if n > 0 {
			cur += " "
		}
		cur += word
		n++
	}
	line(b, "", cur)
}
