package config

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/bench-bridge/bench-bridge/targets"
)

// NamePattern is what a bridge's or a target's name may be: it becomes part of artifact file names.
var NamePattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// referenceCodecs are the reference bridge's codec names; a user bridge by one of them would be mistaken for it.
var referenceCodecs = []string{"json", "fast", "binary"}

// problem is one thing wrong in the file, at a line (0 when the file says nothing about where).
type problem struct {
	line int
	msg  string
}

// problems collects every problem of a file, to report them all at once in file order.
type problems struct {
	path  string
	lines keyLines
	list  []problem
}

// add records a problem about key (dotted, e.g. "bridges.x.binary"), at the line where the key is written.
func (p *problems) add(key, format string, args ...any) {
	p.list = append(p.list, problem{p.lines.of(key), fmt.Sprintf(format, args...)})
}

// err is every problem as one error, "file:line: message" each, in file order; nil when there is none.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	sort.SliceStable(p.list, func(i, j int) bool { return p.list[i].line < p.list[j].line })
	var msgs []string
	for _, pr := range p.list {
		if pr.line > 0 {
			msgs = append(msgs, fmt.Sprintf("%s:%d: %s", p.path, pr.line, pr.msg))
		} else {
			msgs = append(msgs, fmt.Sprintf("%s: %s", p.path, pr.msg))
		}
	}
	return errors.New(strings.Join(msgs, "\n"))
}

// file is the file's top level, each table decoded on its own so that one table's type error does not hide the
// others'.
type file struct {
	Defaults toml.Primitive            `toml:"defaults"`
	QuickJS  toml.Primitive            `toml:"quickjs"`
	Bridges  map[string]toml.Primitive `toml:"bridges"`
	Targets  map[string]toml.Primitive `toml:"targets"`
	Gate     toml.Primitive            `toml:"gate"`
}

// Parse decodes and checks a config file's text; path is used for messages and relative paths. It reports every
// problem of the file at once, each with its line. A bridge with problems does not fail the file: its problems are
// kept and returned by Bridge, so that only the commands that use it fail.
func Parse(path, text string) (*Config, error) {
	c := &Config{Path: path, Bridges: map[string]Bridge{}, Targets: map[string]Target{}, broken: map[string]error{}}
	var f file
	md, err := toml.Decode(text, &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	p := &problems{path: path, lines: findKeyLines(text)}
	decode := func(key string, prim toml.Primitive, v any) bool {
		if err := md.PrimitiveDecode(prim, v); err != nil {
			p.add(key, "%s: %s", key, decodeMessage(err))
			return false
		}
		return true
	}
	decode("defaults", f.Defaults, &c.Defaults)
	decode("quickjs", f.QuickJS, &c.QuickJS)
	if decode("gate", f.Gate, &c.Gate) {
		if err := c.Gate.check(); err != nil {
			p.add("gate", "%v", err)
		}
	}
	for _, name := range sortedKeys(f.Targets) {
		var t Target
		key := "targets." + name
		if !decode(key, f.Targets[name], &t) {
			continue
		}
		c.Targets[name] = t
		if !NamePattern.MatchString(name) {
			p.add(key, "%s: a target's name may hold only letters, digits, '.', '_' and '-'", key)
		}
		if !slices.Contains(TargetKinds, t.Kind) {
			p.add(key+".kind", "%s.kind is %q, want one of %s", key, t.Kind, strings.Join(TargetKinds, ", "))
		}
		if err := targets.CheckSysfs(t.Sysfs); err != nil {
			p.add(key+".sysfs", "%s.sysfs %q: %v", key, t.Sysfs, err)
		}
	}
	for _, k := range md.Undecoded() {
		if len(k) < 2 || k[0] != "bridges" {
			p.add(k.String(), "unknown key %s (docs/targets.md lists every key)", k)
		}
	}
	if c.Defaults.Samples < 0 {
		p.add("defaults.samples", "defaults.samples is %d, want at least 1", c.Defaults.Samples)
	}
	if c.Defaults.MinTime.Duration < 0 {
		p.add("defaults.min_time", "defaults.min_time is %s, want a positive duration", c.Defaults.MinTime)
	}
	var all []problem
	for _, name := range sortedKeys(f.Bridges) {
		bp := &problems{path: path, lines: p.lines}
		c.parseBridge(bp, md, name, f.Bridges[name])
		if err := bp.err(); err != nil {
			c.broken[name] = err
			all = append(all, bp.list...)
		}
	}
	if err := p.err(); err != nil {
		// The file cannot be used: say everything that is wrong with it, the bridges' problems too.
		p.list = append(p.list, all...)
		return nil, p.err()
	}
	return c, nil
}

// parseBridge decodes and checks one bridges.NAME table into c.Bridges, recording its problems in p.
func (c *Config) parseBridge(p *problems, md toml.MetaData, name string, prim toml.Primitive) {
	key := "bridges." + name
	var b Bridge
	if err := md.PrimitiveDecode(prim, &b); err != nil {
		p.add(key, "%s: %s", key, decodeMessage(err))
		return
	}
	for _, k := range md.Undecoded() {
		if len(k) > 2 && k[0] == "bridges" && k[1] == name {
			p.add(k.String(), "unknown key %s (a bridge has build and binary)", k)
		}
	}
	if !NamePattern.MatchString(name) {
		p.add(key, "%s: a bridge's name may hold only letters, digits, '.', '_' and '-'", key)
	}
	if slices.Contains(referenceCodecs, name) {
		p.add(key, "%s: %s is a codec of the reference bridge (--codec %s); give the bridge another name", key, name, name)
	}
	if b.Binary == "" {
		p.add(key+".binary", "%s needs binary (the program's path, relative to the config's folder)", key)
	}
	c.Bridges[name] = b
}

// decodeMessage is a decode error's text without the library's "toml: line N (last key ...)" prefix: the caller
// names the key and the line.
func decodeMessage(err error) string {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return pe.Message
	}
	msg := err.Error()
	if i := strings.Index(msg, "): "); strings.HasPrefix(msg, "toml:") && i >= 0 {
		return msg[i+3:]
	}
	return strings.TrimPrefix(msg, "toml: ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
