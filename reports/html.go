package reports

import (
	"bytes"
	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/stats"
	"html/template"
	"io"
)

// page is one self-contained HTML page: no script, no external style sheet, the chart inline as SVG.
var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>bench-bridge: {{range $i, $c := .Columns}}{{if $i}}, {{end}}{{$c.Label}}{{end}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #ddd; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; font-family: ui-monospace, monospace; }
th { background: #f4f4f4; }
figure { margin: 2em 0; }
figure svg { max-width: 100%; height: auto; }
</style>
</head>
<body>
<h1>bench-bridge</h1>
<p>Times per op; ×ref is the least sample over the least <code>ref_js_loop</code> sample measured beside it, in the same artifact; "×ref vs" is
this artifact's ×ref against the first artifact's, with the p-value of its test: paired over the process pairs when the
two ran in one session, else the Mann-Whitney U test ("~": no change that counts, either not significant at {{.Alpha}} or
under the minimum effect, which the notes name; "-": not judged, the origins differ). "-" in the interval column: no
{{.Level}}% interval.</p>
<table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{with .Frame}}<p>{{.}}</p>{{end}}
{{with .Chart}}<figure>{{.}}<figcaption>Crossings per ms per case, one bar per artifact, log scale.</figcaption></figure>{{end}}
{{with .Notes}}<h2>Notes</h2>
<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
<p>Artifacts: {{range $i, $c := .Columns}}{{if $i}}, {{end}}<code>{{$c.File}}</code>{{end}}</p>
</body>
</html>
`))

// renderHTML writes the table, the frame line, the chart and the notes as one page.
func renderHTML(w io.Writer, t *analysis.Table) error {
	data := struct {
		Columns []analysis.Column
		Header  []string
		Rows    [][]string
		Frame   string
		Chart   template.HTML
		Notes   []string
		Alpha   float64
		Level   float64 // in per cent
	}{Columns: t.Columns, Header: header(t), Frame: frameLine(t), Notes: footNotes(t), Alpha: t.Alpha,
		Level: 100 * stats.Level}
	if data.Alpha == 0 { // a table not made by analysis.Build
		data.Alpha = stats.DefaultAlpha
	}
	for _, r := range t.Rows {
		data.Rows = append(data.Rows, cells(t, r))
	}
	// The chart is our own SVG from gonum/plot, which escapes the labels it draws.
	if svg, err := Chart(t, "svg"); err == nil {
		if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
			svg = svg[i:] // the XML prolog has no place inside HTML
		}
		data.Chart = template.HTML(svg)
	}
	return page.Execute(w, data)
}
