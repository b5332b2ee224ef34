package history

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// Entry is one artifact ready to be added: the artifact, where it came from, and the keys the store files it under.
type Entry struct {
	File     string
	Artifact *artifact.Artifact
	// SHA256 is the file's checksum: the same identity with other bytes is another artifact claiming to be this one.
	SHA256 string
	// Revision is the commit of the code the artifact measured.
	Revision string
	// Night is the night the artifact belongs to, as YYYY-MM-DD.
	Night  string
	Device Device
	Series SeriesKey
	// Identity is what makes two files the same artifact: its session, its program in the session and its target.
	Identity string
}

// Device is one machine of the history.
type Device struct {
	// Key is stable across nights: the target's name and a hash of the device metadata that does not change with
	// an update (architecture, CPU, cores, emulation, the phone's model), or the name the user gave the device.
	Key         string
	Target      string
	Description string
}

// SeriesKey is what one series holds fixed: a device, a program, and how it was built. Numbers of another
// compiler or QuickJS build are another series, never a change point in this one.
type SeriesKey struct {
	Device   string
	Program  string
	Compiler string
	QuickJS  string
	Build    string
}

// EntryOptions are what the caller knows about an artifact that the artifact may not say.
type EntryOptions struct {
	// Commit is the commit the artifact measured; empty takes the revision the bench-bridge binary was built from,
	// when its tool field records one.
	Commit string
	// Environment is the commit the environment names ($GITHUB_SHA): taken after the one the artifact records.
	Environment string
	// Night is the night as YYYY-MM-DD; empty takes the day (UTC) the run started.
	Night string
	// Device names the device instead of the key made from its metadata: for identical machines of a lab, which
	// the metadata cannot tell apart.
	Device string
}

// nightLayout is how nights are written.
const nightLayout = "2006-01-02"

// ReadEntry reads and validates the artifact at path and works out what the store keeps it under. An artifact of a
// newer schema, without a commit or without a night is refused, naming the file.
func ReadEntry(path string, o EntryOptions) (Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Entry{}, err
	}
	a, err := artifact.Parse(data)
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w", path, err)
	}
	sum := sha256.Sum256(data)
	e := Entry{File: path, Artifact: a, SHA256: hex.EncodeToString(sum[:]), Device: DeviceOf(a, o.Device)}
	e.Series = SeriesOf(a, e.Device.Key)
	e.Identity = identity(a)
	e.Revision = o.Commit
	if e.Revision == "" {
		e.Revision = a.Settings.Commit // a user's bridge built at a revision (NAME@REV)
	}
	if e.Revision == "" {
		e.Revision = o.Environment
	}
	if e.Revision == "" {
		e.Revision = ToolRevision(a.Tool)
	}
	if e.Revision == "" {
		return Entry{}, fmt.Errorf("%s: no commit: the artifact's tool field (%q) records none; pass --commit SHA or set GITHUB_SHA", path, a.Tool)
	}
	switch {
	case o.Night != "":
		if _, err := time.Parse(nightLayout, o.Night); err != nil {
			return Entry{}, fmt.Errorf("--night %q: want a date as YYYY-MM-DD", o.Night)
		}
		e.Night = o.Night
	case a.StartedAt.IsZero():
		return Entry{}, fmt.Errorf("%s: field \"started_at\" is missing: pass --night YYYY-MM-DD", path)
	default:
		e.Night = a.StartedAt.UTC().Format(nightLayout)
	}
	return e, nil
}

// identity is what the same artifact has in every copy: its session, which program of the session it is and its
// target; an artifact without a session (schema 1) is its run's start and label.
func identity(a *artifact.Artifact) string {
	if a.Session.ID != "" {
		return fmt.Sprintf("session %s program %d target %s", a.Session.ID, a.Session.Program, a.Target)
	}
	return fmt.Sprintf("run %s target %s %s", a.StartedAt.UTC().Format(time.RFC3339Nano), a.Target, a.Label())
}

// revisionInTool finds the commit in a tool field such as "bench-bridge v1.2.0 0123456789ab".
var revisionInTool = regexp.MustCompile(`\b[0-9a-f]{12,40}\b`)

// ToolRevision is the revision of the bench-bridge binary that wrote an artifact, from its tool field, or "" when
// it was built without one (go run, -buildvcs=false). A tree with local changes ("+dirty") has no revision either.
func ToolRevision(tool string) string {
	if strings.Contains(tool, "+dirty") {
		return ""
	}
	return revisionInTool.FindString(tool)
}

// DeviceOf is a's device as the history keys it; name, when not empty, is the key.
func DeviceOf(a *artifact.Artifact, name string) Device {
	d := a.Device
	desc := []string{d.CPUModel, strconv.Itoa(d.Cores) + " cores", d.Arch}
	fields := []string{d.Arch, d.CPUModel, strconv.Itoa(d.Cores), d.Emulation()}
	if an := d.Android; an != nil {
		model := strings.TrimSpace(an.Manufacturer + " " + an.Model)
		desc = append([]string{model}, desc...)
		fields = append(fields, an.Manufacturer, an.Model, an.Device)
	}
	if d.OS != "" {
		desc = append(desc, d.OS)
	}
	if e := d.Emulation(); e != "" {
		desc = append(desc, e)
	}
	sum := sha256.Sum256([]byte(strings.Join(fields, "\x00")))
	key := a.Target + "-" + hex.EncodeToString(sum[:4])
	if name != "" {
		key = name
	}
	return Device{Key: key, Target: a.Target, Description: strings.Join(nonEmpty(desc), ", ")}
}

// SeriesOf is the series a's numbers belong to on the device keyed device.
func SeriesOf(a *artifact.Artifact, device string) SeriesKey {
	program := a.Kind
	if a.Kind == artifact.ProgramBridge && a.Codec != "" {
		program = a.Codec + " bridge"
	}
	// The series' quickjs column holds QuickJS's version, as it always has (so that a night of today continues the
	// series of the nights before it), and another engine's name and version.
	quickjs := a.Engine.String()
	if a.Engine.Name == "quickjs" {
		quickjs = a.Engine.Version
	}
	build := strings.Join(append(strings.Fields(a.Device.CFlags), a.Settings.Defines...), " ")
	return SeriesKey{Device: device, Program: program, Compiler: a.Device.Compiler, QuickJS: quickjs, Build: build}
}

func nonEmpty(xs []string) []string {
	var out []string
	for _, x := range xs {
		if strings.TrimSpace(x) != "" && x != "0 cores" {
			out = append(out, x)
		}
	}
	return out
}
