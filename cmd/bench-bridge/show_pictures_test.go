package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShowChartAndHTML(t *testing.T) {
	dir := t.TempDir()
	a, b := "../../reports/testdata/floor.json", "../../reports/testdata/json.json"
	png, svg, html := filepath.Join(dir, "c.png"), filepath.Join(dir, "c.svg"), filepath.Join(dir, "page.html")
	for _, args := range [][]string{{"show", "--chart", png, "--html", html, a, b}, {"show", "--chart", svg, a, b}} {
		if stdout, stderr, code := run(t, args...); code != 0 || !strings.Contains(stdout, "script_to_host_scalar") {
			t.Fatalf("bench-bridge %s: exit %d\n%s\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	if data, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(data), "\x89PNG") {
		t.Errorf("%s: not a png (%v)", png, err)
	}
	if data, err := os.ReadFile(svg); err != nil || !strings.Contains(string(data), "<svg") {
		t.Errorf("%s: not an svg (%v)", svg, err)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	// One page: the table and the chart inline, nothing fetched from elsewhere.
	for _, want := range []string{"<table>", "<td>script_to_host_scalar</td>", "<svg", "At 60 Hz"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, external := range []string{"<script", "<link", "src=\"http"} {
		if strings.Contains(string(page), external) {
			t.Errorf("the page is not self-contained: %q", external)
		}
	}

	_, stderr, code := run(t, "show", "--chart", filepath.Join(dir, "c.gif"), a)
	if code != 1 || !strings.Contains(stderr, "want a file ending in .svg or .png") {
		t.Errorf("--chart c.gif: exit %d, %s", code, stderr)
	}
	stdout, _, code := run(t, "show", "--format", "benchstat", a, b)
	if code != 0 || !strings.Contains(stdout, "artifact: json linux\nBenchmarkCase/ref_js_loop ") {
		t.Errorf("--format benchstat: exit %d\n%s", code, stdout)
	}
}
