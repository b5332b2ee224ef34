package reports

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/bench-bridge/bench-bridge/analysis"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ChartFormats are the picture formats Chart draws.
var ChartFormats = []string{"svg", "png"}

// Chart draws the table's crossings per ms per case, one horizontal bar per artifact, on a log scale, each bar
// labelled with its value: what 1 ms of a 60 Hz frame buys, through each boundary. The cases are rows, the first at
// the top, and the picture is chartWidth wide whatever the artifacts, so that it reads on a 1280-pixel screen; it
// grows down, a bar's thickness fixed, and the legend goes under it. format is "svg" or "png".
func Chart(t *analysis.Table, format string) ([]byte, error) {
	var rows []analysis.Row
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			if c.CrossingsPerMs != nil && *c.CrossingsPerMs > 0 {
				rows = append(rows, r)
				break
			}
		}
	}
	if len(rows) == 0 {
		return nil, errors.New("no crossing case was measured: nothing to chart")
	}
	p := plot.New()
	p.Title.Text = chartTitle
	p.X.Label.Text = "crossings per ms (log scale)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = decades{}
	p.X.Min, p.X.Max = valueRange(rows)
	names := make([]string, len(rows))
	for i, r := range rows {
		names[len(rows)-1-i] = r.Case // the first case at the top
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.5, float64(len(rows))-0.5
	p.Add(&plotter.Grid{Vertical: draw.LineStyle{Color: color.Gray{Y: 220}, Width: vg.Points(0.5)}}) // the decades

	n := len(t.Columns)
	legends := make([]plot.Legend, (n+legendRows-1)/legendRows) // columns of legendRows entries, side by side
	for i, col := range t.Columns {
		b := &bars{rows: rows, col: i, floor: p.X.Min, color: barColor(i),
			width: groupWidth / float64(n), offset: groupWidth/2 - (float64(i)+0.5)*groupWidth/float64(n)}
		p.Add(b)
		l := &legends[i/legendRows]
		if i%legendRows == 0 {
			*l = plot.NewLegend()
			l.Top, l.Left, l.Padding = true, true, vg.Points(3)
			l.TextStyle.Font.Size = 10
		}
		l.Add(col.Label, b)
	}
	// The legend goes under the title, above the bars, so that it is read first; the title is drawn here with it.
	title := p.Title.TextStyle
	p.Title.Text = ""
	top := vg.Points(30) + vg.Length(min(n, legendRows))*(vg.Points(10)+vg.Points(3))
	rowHeight := max(vg.Length(n)*barThickness/groupWidth, vg.Points(24))
	c, err := draw.NewFormattedCanvas(chartWidth, top+vg.Length(len(rows))*rowHeight+vg.Points(60), format)
	if err != nil {
		return nil, fmt.Errorf("chart: %w", err)
	}
	dc := draw.New(c)
	title.XAlign, title.YAlign = draw.XCenter, draw.YTop
	dc.FillText(title, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(4)}, chartTitle)
	for i := range legends {
		area := dc
		area.Max.Y -= vg.Points(26)
		area.Min.X += vg.Points(12) + vg.Length(i)*chartWidth/3
		legends[i].Draw(area)
	}
	plotArea := dc
	plotArea.Max.Y -= top
	p.Draw(plotArea)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: %w", err)
	}
	return buf.Bytes(), nil
}

// chartTitle says what the chart shows.
const chartTitle = "Crossings per ms (1 ms of a 60 Hz frame), higher is better"

// legendRows is how many artifacts a column of the legend names: three columns fit the chart's width.
const legendRows = 6

// The chart's layout: 1280 pixels at the 96 dpi of its png (960 points) wide; each bar 7 points thick, a case's bars
// taking groupWidth of its row, the rest the gap to the next case.
const (
	chartWidth   = vg.Length(960)
	barThickness = vg.Length(7)
	groupWidth   = 0.8
)

// barColor is artifact i's colour: fourteen that stay apart (Tableau's ten, then near-black and three light ones),
// where plotutil's seven repeat from the eighth.
func barColor(i int) color.Color {
	palette := []color.RGBA{{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
		{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255},
		{23, 190, 207, 255}, {30, 30, 30, 255}, {174, 199, 232, 255}, {152, 223, 138, 255}, {255, 152, 150, 255}}
	if i < len(palette) {
		return palette[i]
	}
	return plotutil.Color(i)
}

// valueRange spans the values in whole decades, with head room above for the labels.
func valueRange(rows []analysis.Row) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		for _, c := range r.Cells {
			if c.CrossingsPerMs != nil && *c.CrossingsPerMs > 0 {
				lo, hi = math.Min(lo, *c.CrossingsPerMs), math.Max(hi, *c.CrossingsPerMs)
			}
		}
	}
	return math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)+0.3))
}

// bars is one artifact's bars: plotter.BarChart starts its bars at zero, which a log scale cannot show, so these
// start at the axis's floor.
type bars struct {
	rows          []analysis.Row
	col           int
	floor         float64
	width, offset float64 // in case rows
	color         color.Color
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	label := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 7), Handler: plot.DefaultTextHandler,
		XAlign: draw.XLeft, YAlign: draw.YCenter}
	for i, r := range b.rows {
		v := r.Cells[b.col].CrossingsPerMs
		if v == nil || *v <= 0 {
			continue
		}
		y := float64(len(b.rows)-1-i) + b.offset
		y0, y1 := trY(y-b.width/2), trY(y+b.width/2)
		x0, x1 := trX(b.floor), trX(*v)
		c.FillPolygon(b.color, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		c.FillText(label, vg.Point{X: x1 + vg.Points(2), Y: (y0 + y1) / 2}, compact(*v))
	}
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (b *bars) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(b.color, pts)
}

// decades marks every power of ten, labelled 100k rather than 1e+05.
type decades struct{}

// Ticks implements plot.Ticker.
func (decades) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		v, label := math.Pow(10, e), ""
		switch {
		case e >= 6:
			label = strconv.FormatFloat(v/1e6, 'g', -1, 64) + "M"
		case e >= 3:
			label = strconv.FormatFloat(v/1e3, 'g', -1, 64) + "k"
		default:
			label = strconv.FormatFloat(v, 'g', -1, 64)
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
	}
	return ticks
}

// compact prints a count in three significant digits with k and M: 23.2k, 798, 1.9.
func compact(v float64) string {
	// Round first, so that 999.7 is 1.00k and not 1.000k.
	three := func(x float64) string {
		r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 3, 64), 64)
		return significant(r)
	}
	switch {
	case v >= 999.5e3:
		return three(v/1e6) + "M"
	case v >= 999.5:
		return three(v/1e3) + "k"
	case v >= 10:
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return three(v)
}
