package dashboard

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/trend"
)

// colors are the devices' line colours, in the order the report lists the devices.
var colors = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"}

// Chart geometry, in SVG units.
const (
	chartW, chartH = 900, 260
	padL, padR     = 60, 20
	padT, padB     = 20, 40
)

// chart is one case and metric over the nights, a line per device.
type chart struct {
	Title string
	ID    string
	SVG   template.HTML
}

// HTML writes one self-contained page: the open changes, then a chart per case and metric with a line per device,
// the changes marked with their commit ranges and a band of twice the device's noise around each level. It loads
// nothing: the charts are inline SVG.
func HTML(w io.Writer, r *analysis.History) error {
	var open []analysis.Change
	for _, c := range r.Changes {
		if c.Open {
			open = append(open, c)
		}
	}
	data := struct {
		Summary string
		Open    []analysis.Change
		Charts  []chart
		Legend  []legendItem
		Size    func(analysis.Change) string
		Cause   func(analysis.Change) string
		Commits func(analysis.Change) string
		Devices func(analysis.Change) string
	}{summary(r), open, charts(r), legend(r), size, cause, commits, devices}
	return page.Execute(w, data)
}

type legendItem struct{ Device, Description, Color string }

func legend(r *analysis.History) []legendItem {
	var out []legendItem
	for i, d := range r.Devices {
		out = append(out, legendItem{d.Key, d.Description, colors[i%len(colors)]})
	}
	return out
}

// charts makes a chart of every case and metric that has a line, in the order of the report's lines.
func charts(r *analysis.History) []chart {
	type key struct{ program, name, metric string }
	var keys []key
	byKey := map[key][]analysis.Line{}
	for _, l := range r.Lines {
		k := key{l.Program, l.Case, l.Metric}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], l)
	}
	color := map[string]string{}
	for i, d := range r.Devices {
		color[d.Key] = colors[i%len(colors)]
	}
	var out []chart
	for i, k := range keys {
		what := map[string]string{trend.Ratio: "ratio to ref_js_loop", trend.Instructions: "instructions per op",
			trend.Allocations: "allocations per op"}[k.metric]
		out = append(out, chart{Title: fmt.Sprintf("%s: %s (%s)", k.name, what, k.program), ID: fmt.Sprintf("chart-%d", i),
			SVG: svg(byKey[k], r.Changes, k.program, k.name, k.metric, color)})
	}
	return out
}

// svg draws the lines of one case and metric over the nights any of them has, with the changes and noise bands.
func svg(lines []analysis.Line, changes []analysis.Change, program, name, metric string, color map[string]string) template.HTML {
	var nights []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for _, p := range l.Points {
			if !slices.Contains(nights, p.Night) {
				nights = append(nights, p.Night)
			}
			lo, hi = min(lo, p.Value), max(hi, p.Value)
		}
	}
	slices.Sort(nights)
	if lo == hi {
		lo, hi = lo*0.95, hi*1.05+1e-9
	}
	lo, hi = lo-(hi-lo)*0.08, hi+(hi-lo)*0.08
	x := func(night string) float64 {
		i, _ := slices.BinarySearch(nights, night)
		if len(nights) == 1 {
			return padL + (chartW-padL-padR)/2
		}
		return padL + float64(i)*(chartW-padL-padR)/float64(len(nights)-1)
	}
	y := func(v float64) float64 {
		v = min(max(v, lo), hi)
		return chartH - padB - (v-lo)/(hi-lo)*(chartH-padT-padB)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img">`, chartW, chartH, chartW, chartH)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#fff" stroke="#ccc"/>`, padL, padT, chartW-padL-padR, chartH-padT-padB)
	for i := range 5 { // the value axis
		v := lo + (hi-lo)*float64(i)/4
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="11" text-anchor="end">%s</text>`, padL-6, y(v)+4, esc(num(v)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11">%s</text>`, padL, chartH-padB+16, esc(nights[0]))
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="end">%s</text>`, chartW-padR, chartH-padB+16, esc(nights[len(nights)-1]))
	for _, l := range lines {
		band(&b, l, x, y, color[l.Device])
	}
	for _, c := range changes {
		if c.Program != program || c.Case != name || c.Metric != metric {
			continue
		}
		cx := x(c.FirstNight)
		stroke := "#888"
		if c.Cause == trend.CauseCode {
			stroke = "#000"
		}
		fmt.Fprintf(&b, `<line class="change" x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-dasharray="4 3"/>`, cx, padT, cx, chartH-padB, stroke)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s %s</text>`, cx, chartH-padB+30, esc(commits(c)), esc(fmt.Sprintf("%+.1f%%", 100*c.Shift)))
	}
	for _, l := range lines {
		var pts []string
		for _, p := range l.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.Night), y(p.Value)))
		}
		fmt.Fprintf(&b, `<polyline class="device" fill="none" stroke="%s" stroke-width="1.5" points="%s"><title>%s</title></polyline>`,
			color[l.Device], strings.Join(pts, " "), esc(l.Device))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// band shades each of the line's levels with its band of noise.
func band(b *strings.Builder, l analysis.Line, x func(string) float64, y func(float64) float64, color string) {
	for _, lv := range l.Levels {
		top, bottom := y(lv.High), y(lv.Low)
		x0, x1 := x(lv.First), x(lv.Last)
		fmt.Fprintf(b, `<rect class="noise" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.12"/>`,
			x0, top, max(x1-x0, 1), bottom-top, color)
	}
}

func esc(s string) string { return template.HTMLEscapeString(s) }

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>bench-bridge history</title>
<style>
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin-bottom: 1.5em; }
td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; font-size: 0.9em; }
.legend span { display: inline-block; margin-right: 1.5em; }
.swatch { display: inline-block; width: 1em; height: 0.6em; margin-right: 0.3em; }
</style></head>
<body>
<h1>bench-bridge history</h1>
<p>{{.Summary}}. Dashed lines are changes (black: the code's, grey: a device's or undecided), labelled with the commits
they came between; the shaded bands are twice each device's night-to-night noise around each level.</p>
<p class="legend">{{range .Legend}}<span><span class="swatch" style="background: {{.Color}}"></span>{{.Device}}: {{.Description}}</span>{{end}}</p>
<h2>Open changes</h2>
{{if .Open}}<table id="open-changes"><tr><th>first night</th><th>program</th><th>case</th><th>metric</th><th>change</th><th>cause</th><th>commits</th><th>devices</th><th>known</th></tr>
{{range .Open}}<tr><td>{{.FirstNight}}</td><td>{{.Program}}</td><td>{{.Case}}</td><td>{{.Metric}}</td><td>{{call $.Size .}}</td><td>{{call $.Cause .}}</td><td>{{call $.Commits .}}</td><td>{{call $.Devices .}}</td><td class="known">{{with .Ack}}known: {{.Note}}{{end}}</td></tr>
{{end}}</table>{{else}}<p id="open-changes">None.</p>{{end}}
{{range .Charts}}<h2 id="{{.ID}}">{{.Title}}</h2>
{{.SVG}}
{{end}}
</body></html>
`))
