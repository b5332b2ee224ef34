package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/history"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
	"github.com/bench-bridge/bench-bridge/trend"
)

// report is what three devices' 40 nights of program say when the first runs 10% slower from night 20 and all three
// from night 30, with instruction counts on the first that move at night 30.
func report(t *testing.T, program string) *analysis.History {
	t.Helper()
	h := &history.History{}
	for d := range 3 {
		key := fmt.Sprintf("dev%d", d)
		s := history.Series{SeriesKey: history.SeriesKey{Device: key, Program: program},
			Device: history.Device{Key: key, Description: "machine " + key}}
		for n := range 40 {
			ratio := 50 * (1 + 0.01*math.Sin(float64(7*n+d)))
			instr := math.NaN()
			if d == 0 {
				instr = 1800
			}
			if n >= 20 && d == 0 {
				ratio *= 1.1
			}
			if n >= 30 {
				ratio *= 1.1
				instr = 1900
			}
			if d != 0 {
				instr = math.NaN()
			}
			s.Nights = append(s.Nights, history.Night{Night: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n).Format("2006-01-02"),
				Revision: fmt.Sprintf("c%02d", n), Results: []history.Result{{Case: "script_to_host_scalar", Ratio: ratio, Instructions: instr, Allocs: math.NaN()}}})
		}
		h.Series = append(h.Series, s)
		h.Series[len(h.Series)-1].Device.Key = key
	}
	return analysis.BuildHistory(h, trend.DefaultOptions)
}

// TestChangesFormats: every format names the code's change with its commits and the device's change as one
// device's; JSON reads back.
func TestChangesFormats(t *testing.T) {
	r := report(t, "json bridge")
	for _, f := range Formats {
		var buf bytes.Buffer
		if err := Changes(&buf, r, f); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{"c29", "c30", "c20", "script_to_host_scalar", "1800"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", f, want, out)
			}
		}
		if f != "json" && (!strings.Contains(out, "the code") || !strings.Contains(out, "one device")) {
			t.Errorf("%s: causes missing in\n%s", f, out)
		}
		if f == "json" {
			var v struct {
				Changes []map[string]any `json:"changes"`
			}
			if err := json.Unmarshal(buf.Bytes(), &v); err != nil || len(v.Changes) != 3 {
				t.Errorf("json: %v, %d changes\n%s", err, len(v.Changes), out)
			}
		}
	}
	var buf bytes.Buffer
	if err := Noise(&buf, r, "text"); err != nil || !strings.Contains(buf.String(), "dev2") || !strings.Contains(buf.String(), "%") {
		t.Errorf("noise: %v\n%s", err, buf.String())
	}
}

// TestBisectCommandOfTheCodesChanges: a change the code made to a bridge of the user's names the bisect that finds
// its commit, in every format; the reference bridge's and a device's do not.
func TestBisectCommandOfTheCodesChanges(t *testing.T) {
	want := "bench-bridge bisect c29 c30 --bridge mine --cases script_to_host_scalar --metric time"
	for _, program := range []string{"mine bridge", "json bridge"} {
		r := report(t, program)
		for _, f := range Formats {
			var buf bytes.Buffer
			if err := Changes(&buf, r, f); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			switch {
			case program == "json bridge" && strings.Contains(out, "bench-bridge bisect"):
				t.Errorf("%s: a bisect command for the reference bridge (built from bench-bridge's own tree)\n%s", f, out)
			case program == "mine bridge" && (!strings.Contains(out, want) ||
				!strings.Contains(out, strings.Replace(want, "time", "instructions", 1)) || strings.Contains(out, "bisect c19 c20")):
				t.Errorf("%s: want the code's changes' bisect commands (time and instructions), not the device's\n%s", f, out)
			}
		}
	}
}

// TestPageInChromium renders the page in a real headless Chromium: the DOM after load has a chart per case and
// metric, a line per device and the changes marked, and the screenshot shows the devices' lines in their colours.
func TestPageInChromium(t *testing.T) {
	bin := testenv.Chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "index.html")
	var buf bytes.Buffer
	if err := HTML(&buf, report(t, "json bridge")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(testenv.RunChromium(t, bin, "--dump-dom", "file://"+page))
	if n := strings.Count(dom, `<svg class="chart"`); n != 2 {
		t.Errorf("%d charts in the DOM, want 2 (ratio and instructions)", n)
	}
	if n := strings.Count(dom, `class="device"`); n != 4 {
		t.Errorf("%d device lines, want 3 + 1", n)
	}
	if n := strings.Count(dom, `class="change"`); n != 3 || !strings.Contains(dom, "c29..c30") {
		t.Errorf("%d changes marked, want 3 with c29..c30", n)
	}
	shot := filepath.Join(dir, "shot.png")
	testenv.RunChromium(t, bin, "--screenshot="+shot, "--window-size=1000,1000", "--hide-scrollbars", "file://"+page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	near := func(r, g, b uint32, want [3]uint32) bool {
		d := func(a, b uint32) uint32 { return max(a, b) - min(a, b) }
		return d(r>>8, want[0])+d(g>>8, want[1])+d(b>>8, want[2]) < 60
	}
	counts := make([]int, 3)
	want := [][3]uint32{{0x1f, 0x77, 0xb4}, {0xd6, 0x27, 0x28}, {0x2c, 0xa0, 0x2c}}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			for i, w := range want {
				if near(r, g, b, w) {
					counts[i]++
				}
			}
		}
	}
	for i, n := range counts {
		if n < 100 {
			t.Errorf("device %d's colour on %d pixels of the screenshot, want its line (at least 100)", i, n)
		}
	}
}
