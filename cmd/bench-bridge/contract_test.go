package main

// The contracts users build on, frozen: the command tree with every flag and its default, the config keys, the exit
// statuses, the protocol's records, the artifact's fields (and every older schema read), the history store of an
// earlier version. A change to one fails here until it is announced: CHANGELOG.md says it, docs/compatibility.md's
// rules are kept (a renamed flag or key keeps working for a minor version, with a warning), and
// `go test ./cmd/bench-bridge -run TestContract -update-golden` accepts the new text. The harness's build interface
// is frozen by the tests that build a bridge whose build files come from an earlier release.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/history"
	"github.com/bench-bridge/bench-bridge/runner"
)

// contract compares got with testdata/contract/NAME.golden, saying what a change asks for.
func contract(t *testing.T, name, got string) {
	t.Helper()
	checkGolden(t, filepath.Join("testdata", "contract", name+".golden"), got,
		"a user-facing contract changed: announce it in CHANGELOG.md, keep docs/compatibility.md's rules, then accept it with go test ./cmd/bench-bridge -run TestContract -update-golden")
}

// TestContractCommands freezes every command, its arguments and every flag with its type and default.
func TestContractCommands(t *testing.T) {
	f := newFactory(strings.NewReader(""), io.Discard, io.Discard)
	root := newRoot(f)
	addTargetCmds(root, f, nil)
	var b strings.Builder
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "help" || c.Name() == "completion" {
			return // cobra's own
		}
		use := c.Use
		if c.HasParent() {
			use = c.Parent().CommandPath() + " " + use
		}
		b.WriteString(use + "\n")
		if len(c.Aliases) > 0 {
			fmt.Fprintf(&b, "  aliases: %s\n", strings.Join(c.Aliases, ", "))
		}
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if fl.Name == "help" {
				return
			}
			line := "  --" + fl.Name
			if fl.Shorthand != "" {
				line += ", -" + fl.Shorthand
			}
			def := fmt.Sprintf("%q", fl.DefValue)
			if fl.DefValue == localName() {
				def = "this machine's target (linux or mac)" // the golden holds on both
			}
			line += " " + fl.Value.Type() + " = " + def
			if fl.Hidden {
				line += " (hidden)"
			}
			if fl.Deprecated != "" {
				line += " (deprecated: " + fl.Deprecated + ")"
			}
			b.WriteString(line + "\n")
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	contract(t, "commands", b.String())
}

// TestContractConfigKeys freezes every key bench-bridge.toml may hold, with its type.
func TestContractConfigKeys(t *testing.T) {
	var b strings.Builder
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for typ.Kind() == reflect.Map || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Pointer {
			if typ.Kind() == reflect.Map {
				prefix += "NAME."
			}
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || typ == reflect.TypeFor[config.Duration]() {
			return
		}
		for fl := range typ.Fields() {
			key, _, _ := strings.Cut(fl.Tag.Get("toml"), ",")
			if key == "" || key == "-" {
				continue
			}
			fmt.Fprintf(&b, "%s%s %s\n", prefix, key, fl.Type)
			walk(prefix+key+".", fl.Type)
		}
	}
	walk("", reflect.TypeFor[config.Config]())
	contract(t, "config-keys", b.String())
}

// TestContractArtifactFields freezes the artifact's JSON fields, with the schema version: a field renamed, removed
// or retyped needs a new schema, read beside the older ones (artifact's TestReads* read every older schema).
func TestContractArtifactFields(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "schema %d\n", artifact.Schema)
	seen := map[reflect.Type]bool{}
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for typ.Kind() == reflect.Map || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || typ.PkgPath() != reflect.TypeFor[artifact.Artifact]().PkgPath() {
			return
		}
		seen[typ] = true
		defer delete(seen, typ)
		for fl := range typ.Fields() {
			name, _, _ := strings.Cut(fl.Tag.Get("json"), ",")
			if name == "-" || !fl.IsExported() {
				continue
			}
			if name == "" && fl.Anonymous {
				walk(prefix, fl.Type)
				continue
			}
			fmt.Fprintf(&b, "%s%s %s\n", prefix, name, fl.Type)
			walk(prefix+name+".", fl.Type)
		}
	}
	walk("", reflect.TypeFor[artifact.Artifact]())
	contract(t, "artifact-fields", b.String())
}

// TestContractProtocolRecords: every record docs/protocol.md lists is one the runner reads and the other way round,
// and the output of a protocol 2 program of an earlier release (the floor's run and loop, frozen in testdata) and
// that output as protocol 1 are still read, line by line.
func TestContractProtocolRecords(t *testing.T) {
	page, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, line := range strings.Split(string(page), "\n") {
		if rest, ok := strings.CutPrefix(line, "| `"); ok {
			listed = append(listed, strings.Fields(strings.Split(rest, "`")[0])[0])
		}
	}
	for _, kind := range listed {
		if !runner.IsRecord(kind) {
			t.Errorf("docs/protocol.md lists the record %s, which the runner does not read", kind)
		}
	}
	transcript, err := os.ReadFile(filepath.Join("testdata", "contract", "protocol2-floor.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, version := range []string{"2", "1"} {
		for i, line := range strings.Split(strings.TrimSpace(string(transcript)), "\n") {
			kind := strings.Fields(line)[0]
			if version == "1" {
				if kind == "ref" || kind == "slowdown" {
					continue // version 2's
				}
				line = strings.Replace(line, "bench-bridge-protocol 2", "bench-bridge-protocol 1", 1)
			}
			if err := runner.CheckLine(line); err != nil {
				t.Errorf("protocol %s, line %d: %q: %v", version, i+1, line, err)
			}
			if !slices.Contains(kinds, kind) {
				kinds = append(kinds, kind)
			}
		}
	}
	for _, kind := range kinds {
		if !slices.Contains(listed, kind) {
			t.Errorf("the record %s is read but docs/protocol.md does not list it", kind)
		}
	}
	slices.Sort(kinds)
	contract(t, "protocol-records", strings.Join(kinds, "\n")+"\n")
}

// TestContractHistoryStore opens a store that bench-bridge 0.9.0 wrote (history schema 1: three nights of the floor
// and the json bridge on one device) and reads it back: a new schema migrates an older store, it never refuses one.
func TestContractHistoryStore(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "contract", "history-schema1.db"))
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(t.TempDir(), "history.db") // a copy: opening may migrate it
	if err := os.WriteFile(store, src, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := history.Open(ctx, store, history.Options{})
	if err != nil {
		t.Fatalf("a store of 0.9.0 (history schema 1): %v", err)
	}
	defer s.Close()
	h, err := s.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Series) != 2 {
		t.Fatalf("a store of 0.9.0: %d series, want the floor's and the json bridge's", len(h.Series))
	}
	for _, sr := range h.Series {
		if len(sr.Nights) == 0 || len(sr.Nights[0].Results) == 0 {
			t.Errorf("series %+v: no nights or results read", sr.SeriesKey)
		}
	}
}

// TestContractExitStatuses: docs/compatibility.md's table of exit statuses is the one the code uses (the statuses
// themselves are each produced by a test: the gate's goldens for 0, 3 and 4, TestInterruptOnTheFakeTarget for 130).
func TestContractExitStatuses(t *testing.T) {
	page, err := os.ReadFile("../../docs/compatibility.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(page), "<!-- exit statuses -->")
	table, _, _ = strings.Cut(table, "<!-- end -->")
	var listed []string
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Split(line, "|"); len(f) > 2 && strings.TrimSpace(f[1]) != "status" && !strings.HasPrefix(strings.TrimSpace(f[1]), "-") {
			listed = append(listed, strings.TrimSpace(f[1]))
		}
	}
	want := []string{"0", "1", fmt.Sprint(exitRegressed), fmt.Sprint(exitUnjudged), "130", "143"}
	if !slices.Equal(listed, want) {
		t.Errorf("docs/compatibility.md lists the exit statuses %v, the code uses %v", listed, want)
	}
	if code := execute([]string{"show", filepath.Join(t.TempDir(), "missing.json")}, io.Discard, io.Discard); code != 1 {
		t.Errorf("show of a missing file: exit %d, want 1", code)
	}
}
