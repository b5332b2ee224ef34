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
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ChartFormats are the picture formats Chart draws.
var ChartFormats = []string{"svg", "png"}

// Chart draws the table's crossings per ms per case, one bar per artifact, on a log scale, each bar labelled with its
// value: what 1 ms of a 60 Hz frame buys, through each boundary. format is "svg" or "png".
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
	p.Title.Text = "Crossings per ms (1 ms of a 60 Hz frame), higher is better"
	p.Y.Label.Text = "crossings per ms (log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = decades{}
	p.Y.Min, p.Y.Max = valueRange(rows)
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Case
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.X.Min, p.X.Max = -0.5, float64(len(rows))-0.5
	p.Legend.Top = true
	p.Legend.Left = false

	groupWidth := 0.8 // in case slots
	for i, col := range t.Columns {
		b := &bars{rows: rows, col: i, floor: p.Y.Min, color: plotutil.Color(i),
			width: groupWidth / float64(len(t.Columns)), offset: -groupWidth/2 + (float64(i)+0.5)*groupWidth/float64(len(t.Columns))}
		p.Add(b)
		p.Legend.Add(col.Label, b)
	}
	width := vg.Length(max(6, 1.0+0.35*float64(len(rows)*len(t.Columns)))) * vg.Inch
	wt, err := p.WriterTo(width, 5*vg.Inch, format)
	if err != nil {
		return nil, fmt.Errorf("chart: %w", err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: %w", err)
	}
	return buf.Bytes(), nil
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
	width, offset float64 // in case slots
	color         color.Color
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	label := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 8), Handler: plot.DefaultTextHandler,
		Rotation: math.Pi / 2, XAlign: draw.XLeft, YAlign: draw.YCenter}
	for i, r := range b.rows {
		v := r.Cells[b.col].CrossingsPerMs
		if v == nil || *v <= 0 {
			continue
		}
		x0, x1 := trX(float64(i)+b.offset-b.width/2), trX(float64(i)+b.offset+b.width/2)
		y0, y1 := trY(b.floor), trY(*v)
		c.FillPolygon(b.color, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		c.FillText(label, vg.Point{X: (x0 + x1) / 2, Y: y1 + vg.Points(2)}, compact(*v))
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
