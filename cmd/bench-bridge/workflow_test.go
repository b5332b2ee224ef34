package main

// The pull-request workflow a user copies into their bridge's repository (examples/ci/bench-bridge-pull-request.yml):
// actionlint finds nothing in it, docs/gate.md shows it whole, it installs the release this source is (or, before
// that release, the last one), and this repository's own pull-request workflow is that file with its few
// differences.

import (
	"bytes"
	"context"
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

const (
	// userWorkflow is the workflow a user copies, from the repository root.
	userWorkflow = "examples/ci/bench-bridge-pull-request.yml"
	// ownWorkflow is this repository's use of it, for the C++ example bridge.
	ownWorkflow = ".github/workflows/pull-request.yml"
	// actionlintInstall is how scripts/test's lint step installs actionlint, pinned.
	actionlintInstall = "go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"
)

// repoFile is a file of the repository, by its path from the root.
func repoFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// actionlint finds actionlint where scripts/test's lint step installs it, $(go env GOPATH)/bin, else on PATH:
// missing, the test fails in CI and is skipped elsewhere.
func actionlint(t *testing.T) string {
	t.Helper()
	gopath := build.Default.GOPATH
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		gopath = strings.TrimSpace(string(out))
	}
	for _, dir := range filepath.SplitList(gopath) {
		if p := filepath.Join(dir, "bin", "actionlint"); isExecutable(p) {
			return p
		}
	}
	if p, err := exec.LookPath("actionlint"); err == nil {
		return p
	}
	testenv.Missing(t, "actionlint not found in $(go env GOPATH)/bin or on PATH: "+actionlintInstall)
	return ""
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// TestWorkflowPassesActionlint: actionlint reports nothing in the user's workflow, nor in this repository's copy.
func TestWorkflowPassesActionlint(t *testing.T) {
	bin := actionlint(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-no-color", userWorkflow, ownWorkflow)
	cmd.Dir = filepath.Join("..", "..")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		t.Fatalf("actionlint %s %s: %v\n%s", userWorkflow, ownWorkflow, err, out.String())
	}
}

// TestWorkflowIsWholeInTheGateDocs: docs/gate.md's section "### A pull request's comparison" shows the workflow a
// user copies whole, byte for byte, in a yaml block.
func TestWorkflowIsWholeInTheGateDocs(t *testing.T) {
	file, doc := repoFile(t, userWorkflow), repoFile(t, "docs/gate.md")
	const heading = "\n### A pull request's comparison\n"
	start := strings.Index(doc, heading)
	if start < 0 {
		t.Fatalf("docs/gate.md: no section %q", strings.TrimSpace(heading))
	}
	section := doc[start+len(heading):]
	if end := regexp.MustCompile(`(?m)^##+ `).FindStringIndex(section); end != nil {
		section = section[:end[0]]
	}
	if strings.Contains(section, "```yaml\n"+file+"```\n") {
		return
	}
	_, block, ok := strings.Cut(section, "```yaml\n")
	if !ok {
		t.Fatalf("docs/gate.md's section %q has no ```yaml block: show %s there whole", strings.TrimSpace(heading), userWorkflow)
	}
	block, _, _ = strings.Cut(block, "```\n")
	t.Fatalf("docs/gate.md's yaml block is not %s byte for byte (copy the file into it): %s", userWorkflow, firstDifference(file, block))
}

// firstDifference says where b first differs from a, by line.
func firstDifference(a, b string) string {
	al, bl := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, x, y)
		}
	}
	return "no difference"
}

// installLine is the workflow's line that installs bench-bridge; its group is the version.
var installLine = regexp.MustCompile(`go install github\.com/bench-bridge/bench-bridge/cmd/bench-bridge@(\S+)`)

// changelogHeading is a version's heading in CHANGELOG.md: "## Unreleased (0.10.0)" or "## 0.9.0 (2026-12-01)".
var changelogHeading = regexp.MustCompile(`(?m)^## (?:Unreleased \((\S+)\)|(\d+\.\d+\.\d+) \(\d{4}-\d{2}-\d{2}\))$`)

// pinsOf are the versions the workflow may install, given the source's Version and its CHANGELOG.md: at a release
// (a version without -dev, its CHANGELOG heading dated), that release and nothing else; before it, the release the
// source is on its way to (what `bench-bridge version` will print for it, version.go), or still the last one
// (CHANGELOG's newest dated heading) while the workflow needs nothing newer. An error says where the two disagree.
func pinsOf(version, changelog string) ([]string, error) {
	release, _, dev := strings.Cut(version, "-")
	headings := changelogHeading.FindAllStringSubmatch(changelog, -1)
	if len(headings) == 0 {
		return nil, fmt.Errorf("CHANGELOG.md: no version heading (## Unreleased (X.Y.Z) or ## X.Y.Z (YYYY-MM-DD))")
	}
	switch newest := headings[0]; {
	case dev && newest[1] != release:
		return nil, fmt.Errorf("Version is %s, on its way to %s, but CHANGELOG.md's newest heading is %q: want ## Unreleased (%s)", version, release, newest[0], release)
	case !dev && newest[2] != release:
		return nil, fmt.Errorf("Version is the release %s, but CHANGELOG.md's newest heading is %q: want ## %s (YYYY-MM-DD)", version, newest[0], release)
	}
	pins := []string{"v" + release}
	for _, h := range headings {
		if dev && h[2] != "" {
			return append(pins, "v"+h[2]), nil
		}
	}
	return pins, nil
}

// TestWorkflowInstallsTheRelease: the workflow installs bench-bridge by one `go install ...@vX.Y.Z`, pinned to a
// version pinsOf allows: a release that forgets the workflow fails here.
func TestWorkflowInstallsTheRelease(t *testing.T) {
	installs := installLine.FindAllStringSubmatch(repoFile(t, userWorkflow), -1)
	if len(installs) != 1 {
		t.Fatalf("%s: want one line `go install github.com/bench-bridge/bench-bridge/cmd/bench-bridge@vX.Y.Z`, found %d", userWorkflow, len(installs))
	}
	pins, err := pinsOf(Version, repoFile(t, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	if pin := installs[0][1]; !slices.Contains(pins, pin) {
		t.Fatalf("%s (and docs/gate.md) install bench-bridge@%s; Version %s wants %s", userWorkflow, pin, Version, strings.Join(pins, " or "))
	}
}

// TestWorkflowPinsOf: pinsOf before a release, at it, and where Version and CHANGELOG.md disagree.
func TestWorkflowPinsOf(t *testing.T) {
	const (
		dev      = "# Changelog\n\n## Unreleased (0.10.0)\n\n### Added\n\n## 0.9.0 (2026-12-01)\n"
		released = "# Changelog\n\n## 0.10.0 (2027-01-15)\n\n### Added\n\n## 0.9.0 (2026-12-01)\n"
		first    = "# Changelog\n\n## Unreleased (0.1.0)\n"
	)
	for _, tc := range []struct {
		version, changelog string
		want               []string // nil: an error
	}{
		{"0.10.0-dev", dev, []string{"v0.10.0", "v0.9.0"}},
		{"0.10.0", released, []string{"v0.10.0"}}, // the release: a workflow still at v0.9.0 fails
		{"0.1.0-dev", first, []string{"v0.1.0"}},
		{"0.10.0", dev, nil},          // released, but the CHANGELOG not
		{"0.11.0-dev", released, nil}, // on to 0.11.0, but the CHANGELOG has no heading for it
		{"0.10.0-dev", "# Changelog\n", nil},
	} {
		got, err := pinsOf(tc.version, tc.changelog)
		if (err != nil) != (tc.want == nil) || !slices.Equal(got, tc.want) {
			t.Errorf("pinsOf(%q, %q) = %q, %v; want %q", tc.version, tc.changelog, got, err, tc.want)
		}
	}
}

// ownWorkflowChanges are the differences of this repository's pull-request workflow from the user's, past the head
// comment: the paths of the C++ example, its build's package, bench-bridge built from this tree, and the example's
// name, config and three cases. VERSION stands for the user's pinned version.
var ownWorkflowChanges = [][2]string{
	{"  pull_request:\n", "  pull_request:\n    paths:\n" +
		"      - \"examples/cpp-quickjs/**\"\n      - \"cases/**\"\n      - \".github/workflows/pull-request.yml\"\n"},
	{" make xz-utils\n", " make xz-utils nlohmann-json3-dev\n"},
	{"          go-version: \"1.26\"\n          cache: false\n      - name: install bench-bridge\n        run: |\n" +
		"          go install github.com/bench-bridge/bench-bridge/cmd/bench-bridge@VERSION\n" +
		"          echo \"$(go env GOPATH)/bin\" >> \"$GITHUB_PATH\"\n",
		"          go-version-file: go.mod\n      - name: build bench-bridge from this tree\n        run: |\n" +
			"          go build -o \"$RUNNER_TEMP/bin/bench-bridge\" ./cmd/bench-bridge\n" +
			"          echo \"$RUNNER_TEMP/bin\" >> \"$GITHUB_PATH\"\n"},
	{"\"NAME@merge-base:origin/$BASE\" NAME --config bench-bridge.toml \\\n            --gate",
		"\"cpp-quickjs@merge-base:origin/$BASE\" cpp-quickjs --config examples/cpp-quickjs/bench-bridge.toml \\\n" +
			"            --cases script_to_host_scalar,host_to_script_scalar,callback --gate"},
}

// TestWorkflowOfThisRepositoryIsTheUsers: .github/workflows/pull-request.yml is the user's workflow with only
// ownWorkflowChanges, so that what this repository runs on its pull requests is what users copy.
func TestWorkflowOfThisRepositoryIsTheUsers(t *testing.T) {
	body := func(file string) string { // past the head comment
		text := repoFile(t, file)
		for strings.HasPrefix(text, "#") {
			_, text, _ = strings.Cut(text, "\n")
		}
		return text
	}
	want := installLine.ReplaceAllString(body(userWorkflow), "go install github.com/bench-bridge/bench-bridge/cmd/bench-bridge@VERSION")
	for _, c := range ownWorkflowChanges {
		if n := strings.Count(want, c[0]); n != 1 {
			t.Fatalf("%s holds %q %d times, want once: update ownWorkflowChanges with the workflow", userWorkflow, c[0], n)
		}
		want = strings.Replace(want, c[0], c[1], 1)
	}
	if got := body(ownWorkflow); got != want {
		t.Errorf("%s is not %s with ownWorkflowChanges (past their head comments): %s", ownWorkflow, userWorkflow, firstDifference(want, got))
	}
}
