package profile

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// Stacks are sampled stacks, folded: the frames outermost first, joined by ";", and the samples of each.
type Stacks map[string]uint64

// foldedHeader starts the folded stacks in itimer's text output.
const foldedHeader = "# stacks, folded"

// ParseFolded reads the folded stacks that follow foldedHeader in a profile's text output (itimer's); text without
// them has none.
func ParseFolded(text string) Stacks {
	out := Stacks{}
	in := false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, foldedHeader) {
			in = true
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if !in || i <= 0 {
			continue // after the header every line is a stack: a frame may begin with "#"
		}
		if n, err := strconv.ParseUint(line[i+1:], 10, 64); err == nil && n > 0 {
			out[line[:i]] += n
		}
	}
	return out
}

// writeFolded prints foldedHeader and the stacks, most samples first, one a line with its samples (flamegraph.pl
// reads them, and ParseFolded).
func (s Stacks) writeFolded(w io.Writer) {
	fmt.Fprintf(w, "%s: outermost first, sampled function last, then the samples (flamegraph.pl reads them)\n", foldedHeader)
	keys := sortedKeys(s)
	sort.SliceStable(keys, func(i, j int) bool { return s[keys[i]] > s[keys[j]] })
	for _, k := range keys {
		fmt.Fprintf(w, "%s %d\n", k, s[k])
	}
}

// total is the samples of every stack.
func (s Stacks) total() uint64 {
	var n uint64
	for _, v := range s {
		n += v
	}
	return n
}

// WritePprof writes the stacks as a gzipped pprof profile (go tool pprof and speedscope read it): one sample per
// distinct stack with its count, a function and a location per frame name.
func WritePprof(w io.Writer, s Stacks, periodNs int64) error {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     periodNs,
	}
	locs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		id := uint64(len(locs) + 1)
		f := &profile.Function{ID: id, Name: name, SystemName: name}
		l := &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
		p.Function, p.Location = append(p.Function, f), append(p.Location, l)
		locs[name] = l
		return l
	}
	for _, stack := range sortedKeys(s) {
		frames := strings.Split(stack, ";")
		sample := &profile.Sample{Value: []int64{int64(s[stack]), int64(s[stack]) * periodNs}}
		for i := len(frames) - 1; i >= 0; i-- { // pprof lists the leaf first
			sample.Location = append(sample.Location, loc(frames[i]))
		}
		p.Sample = append(p.Sample, sample)
	}
	if err := p.CheckValid(); err != nil {
		return err
	}
	return p.Write(w)
}

func sortedKeys(s Stacks) []string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// flameNode is one frame in its callers' context, with the samples of every stack through it.
type flameNode struct {
	name     string
	n        uint64
	base     float64 // the share of the base profile's samples through the same frames (a differential graph)
	children []*flameNode
	index    map[string]*flameNode
}

func (f *flameNode) child(name string) *flameNode {
	if c, ok := f.index[name]; ok {
		return c
	}
	c := &flameNode{name: name, index: map[string]*flameNode{}}
	f.children, f.index[name] = append(f.children, c), c
	return c
}

// tree builds the frame tree of s; with a base, every node also gets the base's share through the same frames.
func tree(s, base Stacks) *flameNode {
	root := &flameNode{name: "all", index: map[string]*flameNode{}}
	for _, stack := range sortedKeys(s) {
		root.n += s[stack]
		at := root
		for _, f := range strings.Split(stack, ";") {
			at = at.child(f)
			at.n += s[stack]
		}
	}
	if bt := base.total(); bt > 0 {
		root.base = 1
		for _, stack := range sortedKeys(base) {
			at := root
			for _, f := range strings.Split(stack, ";") {
				if at = at.index[f]; at == nil {
					break // frames the second profile does not have: nothing of the graph to mark
				}
				at.base += float64(base[stack]) / float64(bt)
			}
		}
	}
	return root
}

// Flame layout.
const (
	flameWidth  = 1200.0
	flameRow    = 17.0
	flameMinW   = 0.3 // narrower frames are left out: they cannot be seen, and would bloat the file
	flameMargin = 30.0
)

// WriteFlameSVG writes s as a flame graph: one box per frame in its callers' context, as wide as its share of the
// samples, the callers below. With a base it is differential: the boxes are s's, and each is red by how much larger
// its share is than in base (what the second program added), blue by how much smaller. Each box has a title (the
// frame, its samples and share, and the change) that a browser shows on hover.
func WriteFlameSVG(w io.Writer, title string, s, base Stacks) error {
	root := tree(s, base)
	if root.n == 0 {
		return fmt.Errorf("flame graph %s: no stacks", title)
	}
	diff := base.total() > 0
	depth := maxDepth(root, root.n)
	height := flameMargin + float64(depth+1)*flameRow + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="flame" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="monospace" font-size="11">`+"\n",
		flameWidth, height, flameWidth, height)
	fmt.Fprintf(&b, `<text class="title" x="%.0f" y="18" text-anchor="middle" font-size="14">%s</text>`+"\n", flameWidth/2, html.EscapeString(title))
	var draw func(n *flameNode, x float64, level int)
	draw = func(n *flameNode, x float64, level int) {
		width := flameWidth * float64(n.n) / float64(root.n)
		if width < flameMinW {
			return
		}
		y := height - 10 - float64(level+1)*flameRow
		share := float64(n.n) / float64(root.n)
		label := fmt.Sprintf("%s: %d samples, %.1f%%", n.name, n.n, 100*share)
		fill := warm(n.name)
		if diff {
			delta := share - n.base
			label += fmt.Sprintf(", %+.1f points against the base", 100*delta)
			fill = diverging(delta)
		}
		fmt.Fprintf(&b, `<g class="frame"><title>%s</title><rect x="%.2f" y="%.1f" width="%.2f" height="%.0f" fill="%s" rx="2"/>`,
			html.EscapeString(label), x, y, width, flameRow-1, fill)
		if chars := int(width / 7); chars >= 3 {
			text := n.name
			if len(text) > chars {
				text = text[:chars-2] + ".."
			}
			fmt.Fprintf(&b, `<text x="%.2f" y="%.1f">%s</text>`, x+3, y+12, html.EscapeString(text))
		}
		b.WriteString("</g>\n")
		sort.Slice(n.children, func(i, j int) bool { return n.children[i].name < n.children[j].name })
		for _, c := range n.children {
			draw(c, x, level+1)
			x += flameWidth * float64(c.n) / float64(root.n)
		}
	}
	draw(root, 0, 0)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// maxDepth is the depth of the frames under n that are drawn: those too narrow to see leave no empty rows above.
func maxDepth(n *flameNode, total uint64) int {
	d := 0
	for _, c := range n.children {
		if flameWidth*float64(c.n)/float64(total) >= flameMinW {
			d = max(d, 1+maxDepth(c, total))
		}
	}
	return d
}

// warm is a flame colour of its own per frame name, so that one function looks the same everywhere.
func warm(name string) string {
	var h uint32 = 2166136261
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+h%50, 80+(h>>8)%130, 40+(h>>16)%40)
}

// diverging is red for a larger share than the base's, blue for a smaller one, white for the same; a change of 10
// points or more is the full colour.
func diverging(delta float64) string {
	v := math.Min(1, math.Abs(delta)/0.10)
	fade := int(255 - 200*v)
	if delta > 0 {
		return fmt.Sprintf("rgb(255,%d,%d)", fade, fade)
	}
	return fmt.Sprintf("rgb(%d,%d,255)", fade, fade)
}

// WriteFlameFile writes path as a flame graph of s, differential against base when base has samples (see
// WriteFlameSVG). A file at path is always a complete one.
func WriteFlameFile(path, title string, s, base Stacks) error {
	var b bytes.Buffer
	if err := WriteFlameSVG(&b, title, s, base); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return artifact.WriteFileAtomic(path, b.Bytes())
}

// WritePictures writes the profile's stacks beside its raw output, as every profiler with stacks does: a flame graph
// (STEM.svg) and a pprof profile (STEM.pb.gz), where STEM is the raw output's path less ".txt". It returns their
// paths.
func (r *Result) WritePictures(title string) (svg, pprof string, err error) {
	stem := strings.TrimSuffix(r.Raw, ".txt")
	svg, pprof = stem+".svg", stem+".pb.gz"
	if err := WriteFlameFile(svg, title, r.Stacks, nil); err != nil {
		return "", "", err
	}
	var b bytes.Buffer
	if err := WritePprof(&b, r.Stacks, r.Period.Nanoseconds()); err != nil {
		return "", "", fmt.Errorf("%s: %w", pprof, err)
	}
	if err := artifact.WriteFileAtomic(pprof, b.Bytes()); err != nil {
		return "", "", err
	}
	return svg, pprof, nil
}
