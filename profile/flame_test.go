package profile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// folded is itimer's text output around its folded stacks.
const folded = `# itimer: 100 samples
#   self  samples  function
  60.00%       60  host_add
#
# stacks, folded: outermost first, sampled function last, then the samples (flamegraph.pl reads them)
main;run;JS_Call;host_add 60
main;run;JS_Call 30
main;run;bb_sink<&> 10
not a stack line
`

func TestParseFolded(t *testing.T) {
	s := ParseFolded(folded)
	if len(s) != 3 || s["main;run;JS_Call;host_add"] != 60 || s["main;run;bb_sink<&>"] != 10 || s.total() != 100 {
		t.Errorf("stacks %v", s)
	}
	if got := ParseFolded("  60.00%  60  host_add\n"); len(got) != 0 {
		t.Errorf("text without folded stacks: %v", got)
	}
}

// TestPprofReadsBack: the pprof profile parses with pprof's own reader, with every stack's samples, leaf first.
func TestPprofReadsBack(t *testing.T) {
	var buf bytes.Buffer
	if err := WritePprof(&buf, ParseFolded(folded), 1e6); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	total := int64(0)
	for _, s := range p.Sample {
		total += s.Value[0]
		if s.Value[0] == 60 && s.Location[0].Line[0].Function.Name != "host_add" {
			t.Errorf("the 60-sample stack's leaf is %s, want host_add", s.Location[0].Line[0].Function.Name)
		}
	}
	if total != 100 || len(p.Function) != 5 || p.SampleType[0].Type != "samples" {
		t.Errorf("%d samples over %d functions, sample types %v", total, len(p.Function), p.SampleType)
	}
}

// TestFlameGraphInChromium loads the flame graph and a differential one in a real headless Chromium: the DOM has a
// box per frame with its share in its title, frames nested as the stacks are, and the differential graph colours
// the frame the second profile added red and the one it shrank blue.
func TestFlameGraphInChromium(t *testing.T) {
	bin := testenv.Chromium(t)
	dir := t.TempDir()
	after := ParseFolded(folded)
	before := Stacks{"main;run;JS_Call": 70, "main;run;bb_sink<&>": 30}
	for name, base := range map[string]Stacks{"flame.svg": nil, "diff.svg": before} {
		var buf bytes.Buffer
		if err := WriteFlameSVG(&buf, "script_to_host_scalar <on> linux", after, base); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		dom := string(testenv.RunChromium(t, bin, "--dump-dom", "file://"+path))
		if n := strings.Count(dom, `class="frame"`); n != 6 { // all, main, run, JS_Call, host_add, bb_sink<&>
			t.Errorf("%s: %d frames in the DOM, want 6\n%s", name, n, dom)
		}
		for _, want := range []string{"host_add: 60 samples, 60.0%", "bb_sink&lt;&amp;&gt;: 10 samples", "script_to_host_scalar &lt;on&gt; linux"} {
			if !strings.Contains(dom, want) {
				t.Errorf("%s: no %q in the DOM", name, want)
			}
		}
		if name == "diff.svg" && (!strings.Contains(dom, "host_add: 60 samples, 60.0%, +60.0 points against the base</title><rect") ||
			!strings.Contains(dom, `+60.0 points against the base</title><rect x="0.00" y="`) || !strings.Contains(dom, `fill="rgb(255,55,55)"`) ||
			!strings.Contains(dom, "bb_sink&lt;&amp;&gt;: 10 samples, 10.0%, -20.0 points") || !strings.Contains(dom, `fill="rgb(55,55,255)"`)) {
			t.Errorf("diff.svg: want host_add red (+60 points) and bb_sink blue (-20 points)\n%s", dom)
		}
		shot := filepath.Join(dir, name+".png")
		testenv.RunChromium(t, bin, "--screenshot="+shot, "--window-size=1200,200", "file://"+path)
		if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
			t.Errorf("%s: no screenshot: %v", name, err)
		}
	}
	var buf bytes.Buffer
	if err := WriteFlameSVG(&buf, "empty", Stacks{}, nil); err == nil {
		t.Error("a flame graph of no stacks: no error")
	}
}

// TestFlameGraphHeightIsWhatIsDrawn: a deep stack too narrow to draw leaves no empty rows above the graph.
func TestFlameGraphHeightIsWhatIsDrawn(t *testing.T) {
	s := Stacks{"main;run": 10000, "main;" + strings.Repeat("[unknown];", 120) + "memcpy": 1}
	var buf bytes.Buffer
	if err := WriteFlameSVG(&buf, "deep", s, nil); err != nil {
		t.Fatal(err)
	}
	// all, main, run: three rows, below the title's margin.
	if want := fmt.Sprintf(`height="%.0f"`, flameMargin+3*flameRow+10); !strings.Contains(buf.String(), want) {
		t.Errorf("want %s:\n%.300s", want, buf.String())
	}
	s["main;"+strings.Repeat("[unknown];", 120)+"memcpy"] = 5000 // now wide enough to draw: 122 rows
	buf.Reset()
	if err := WriteFlameSVG(&buf, "deep", s, nil); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`height="%.0f"`, flameMargin+123*flameRow+10); !strings.Contains(buf.String(), want) {
		t.Errorf("want %s:\n%.300s", want, buf.String())
	}
}
