package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// backend opens a new, empty store of one kind and returns its location.
type backend struct {
	name string
	make func(t *testing.T) string
}

// backends are the two kinds of store, each test run against both through the same code.
var backends = []backend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "history.db") }},
	{"postgres", postgresURL},
}

func open(t *testing.T, loc string) *Store {
	t.Helper()
	s, err := Open(context.Background(), loc, Options{LockWait: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestAddAndLoad: every number the history needs comes back as the artifact had it, under a device key that is the
// same for every night of one machine and another for another machine.
func TestAddAndLoad(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, b.make(t))
			n0 := nightN("linux", "cpu A", 0, 50)
			n0.instr = 1800
			files := []string{writeNight(t, dir, n0), writeNight(t, dir, nightN("linux", "cpu A", 1, 55)),
				writeNight(t, dir, nightN("linux", "cpu B", 1, 40))}
			es := entries(t, EntryOptions{Commit: "c0ffee"}, files...)
			if es[0].Device.Key != es[1].Device.Key || es[0].Device.Key == es[2].Device.Key {
				t.Errorf("device keys %q %q %q: want one per machine", es[0].Device.Key, es[1].Device.Key, es[2].Device.Key)
			}
			out, err := s.Add(context.Background(), es, AddOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range out {
				if !o.Added {
					t.Errorf("%s not added", o.Entry.File)
				}
			}
			h, err := s.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Series) != 2 || len(h.Series[0].Nights)+len(h.Series[1].Nights) != 3 {
				t.Fatalf("series %+v", h.Series)
			}
			var a *Series
			for i := range h.Series {
				if h.Series[i].Device.Key == es[0].Device.Key {
					a = &h.Series[i]
				}
			}
			if a == nil || len(a.Nights) != 2 || a.Nights[0].Night != "2026-11-01" || a.Nights[1].Night != "2026-11-02" || a.Nights[0].Revision != "c0ffee" {
				t.Fatalf("series of cpu A: %+v", a)
			}
			r := a.Nights[0].Result("script_to_host_scalar")
			want := es[0].Artifact.Case("script_to_host_scalar")
			if r == nil || r.Ratio != *want.RatioToRef || r.RatioLow != *want.RatioPILow || len(r.ProcessRatios) != 3 ||
				r.MedianNs != want.MedianNs || r.Instructions != 1800 || !math.IsNaN(r.Allocs) {
				t.Errorf("result %+v, want the artifact's %+v", r, want)
			}
			if a.Program != "json bridge" || a.Compiler != "gcc 12.2.0" || a.QuickJS != "2025-04-26" {
				t.Errorf("series key %+v", a.SeriesKey)
			}
		})
	}
}

// TestSameArtifactTwice: the same artifact added again, from the same file or a copy, in the same call or a later
// one, is one night; a file that claims the same identity with other contents is refused.
func TestSameArtifactTwice(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, b.make(t))
			f := writeNight(t, dir, nightN("linux", "cpu A", 0, 50))
			data, _ := os.ReadFile(f)
			copyOf := filepath.Join(t.TempDir(), "copy.json")
			os.WriteFile(copyOf, data, 0o644)
			ctx := context.Background()
			if _, err := s.Add(ctx, entries(t, EntryOptions{}, f, f), AddOptions{}); err != nil {
				t.Fatal(err)
			}
			out, err := s.Add(ctx, entries(t, EntryOptions{}, copyOf), AddOptions{})
			if err != nil || out[0].Added {
				t.Fatalf("the copy: %v, added %v", err, out)
			}
			if n := nightCount(t, s); n != 1 {
				t.Errorf("%d nights, want 1", n)
			}
			os.WriteFile(copyOf, []byte(strings.Replace(string(data), `"samples": 3`, `"samples": 4`, 1)), 0o644)
			_, err = s.Add(ctx, entries(t, EntryOptions{}, copyOf), AddOptions{})
			if err == nil || !strings.Contains(err.Error(), "other contents") || !strings.Contains(err.Error(), copyOf) {
				t.Errorf("a changed copy: %v", err)
			}
		})
	}
}

// TestNightTwiceAndClocks: a second artifact of a night the series has is refused (or replaces it when asked), a
// night older than the newest is refused (or imported when asked), a night in the future is refused; a refused
// call adds none of its files.
func TestNightTwiceAndClocks(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, b.make(t))
			ctx := context.Background()
			add := func(o AddOptions, ns ...night) error {
				var files []string
				for _, n := range ns {
					files = append(files, writeNight(t, dir, n))
				}
				_, err := s.Add(ctx, entries(t, EntryOptions{}, files...), o)
				return err
			}
			now := AddOptions{Now: day(10)}
			if err := add(now, nightN("linux", "A", 5, 50)); err != nil {
				t.Fatal(err)
			}
			again := nightN("linux", "A", 5, 51)
			again.session, again.start = "rerun", again.start.Add(time.Hour)
			err := add(now, nightN("linux", "A", 6, 50), again)
			if !errors.Is(err, ErrNightTwice) || !strings.Contains(err.Error(), "--replace") {
				t.Errorf("a night twice: %v", err)
			}
			if n := nightCount(t, s); n != 1 {
				t.Errorf("a refused call left %d nights, want 1", n)
			}
			if err := add(AddOptions{Now: day(10), Replace: true}, again); err != nil {
				t.Errorf("--replace: %v", err)
			}
			err = add(now, nightN("linux", "A", 3, 50))
			if err == nil || !strings.Contains(err.Error(), "went backwards") {
				t.Errorf("an older night: %v", err)
			}
			if err := add(AddOptions{Now: day(10), Backfill: true}, nightN("linux", "A", 3, 50)); err != nil {
				t.Errorf("--backfill: %v", err)
			}
			err = add(now, nightN("linux", "A", 30, 50))
			if err == nil || !strings.Contains(err.Error(), "in the future") {
				t.Errorf("a future night: %v", err)
			}
			h, _ := s.Load(ctx)
			if got := h.Series[0].Nights; len(got) != 2 || got[0].Night != "2026-11-04" || got[1].Result("script_to_host_scalar").Ratio < 50.5 {
				t.Errorf("nights %+v, want night 3 and the replaced night 5", got)
			}
		})
	}
}

// TestConcurrentWriters: writers with stores of their own add at once, each its own nights and one artifact they
// all add: every night is kept once.
func TestConcurrentWriters(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			loc := b.make(t)
			open(t, loc) // made once, so that the writers race on adding, not only on creating
			shared := writeNight(t, dir, nightN("lab", "shared", 0, 50))
			const writers, each = 4, 5
			var wg sync.WaitGroup
			errs := make(chan error, writers)
			for w := range writers {
				var files []string
				for i := range each {
					files = append(files, writeNight(t, dir, nightN(fmt.Sprintf("dev%d", w), "cpu", i, 50+float64(i))))
				}
				es := entries(t, EntryOptions{}, append(files, shared)...)
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, err := Open(context.Background(), loc, Options{LockWait: 20 * time.Second})
					if err != nil {
						errs <- err
						return
					}
					defer s.Close()
					for _, e := range es { // one transaction per night, as separate runners would add them
						if _, err := s.Add(context.Background(), []Entry{e}, AddOptions{}); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if n := nightCount(t, open(t, loc)); n != writers*each+1 {
				t.Errorf("%d nights, want %d", n, writers*each+1)
			}
		})
	}
}

// TestLockedStore: while another process holds the SQLite file, an add waits, then fails saying so, and adds
// nothing; once it lets go, the same add goes through once.
func TestLockedStore(t *testing.T) {
	dir := t.TempDir()
	loc := filepath.Join(dir, "history.db")
	open(t, loc)
	holder, err := sql.Open("sqlite", loc)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), loc, Options{LockWait: 300 * time.Millisecond})
	if err == nil {
		defer s.Close()
		es := entries(t, EntryOptions{}, writeNight(t, dir, nightN("linux", "A", 0, 50)))
		_, err = s.Add(context.Background(), es, AddOptions{})
	}
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "another process holds the store") || !strings.Contains(err.Error(), loc) {
		t.Errorf("a held store: %v", err)
	}
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()
	s2 := open(t, loc)
	es := entries(t, EntryOptions{}, writeNight(t, dir, nightN("linux", "A", 0, 50)))
	if _, err := s2.Add(context.Background(), es, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := nightCount(t, s2); n != 1 {
		t.Errorf("%d nights, want 1", n)
	}
}

// TestBadStores: a file that is not a database, a database of something else and a history of a newer schema are
// refused with the file named and what it is; none of them is changed.
func TestBadStores(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte(strings.Repeat("not a database at all\n", 300)), 0o644)
	foreign := filepath.Join(dir, "foreign.db")
	db, _ := sql.Open("sqlite", foreign)
	db.Exec("CREATE TABLE photos (id INTEGER)")
	db.Close()
	newer := filepath.Join(dir, "newer.db")
	open(t, newer).Close()
	db, _ = sql.Open("sqlite", newer)
	db.Exec("UPDATE history_meta SET value = '99' WHERE name = 'schema'")
	db.Close()
	for _, tc := range []struct{ loc, want string }{
		{garbage, "not a SQLite database"},
		{foreign, "not a bench-bridge history: the database has other tables (photos)"},
		{newer, "history schema 99 is newer than this bench-bridge reads (2)"},
		{dir, "is a directory"},
	} {
		before, _ := os.ReadFile(tc.loc)
		_, err := Open(context.Background(), tc.loc, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.loc) {
			t.Errorf("%s: %v, want %q", tc.loc, err, tc.want)
		}
		if after, _ := os.ReadFile(tc.loc); string(after) != string(before) {
			t.Errorf("%s was changed", tc.loc)
		}
	}
}

// TestBadArtifacts: an artifact of a newer schema, one without a commit and a bad --night are refused naming the
// file or the flag.
func TestBadArtifacts(t *testing.T) {
	dir := t.TempDir()
	f := writeNight(t, dir, nightN("linux", "A", 0, 50))
	data, _ := os.ReadFile(f)
	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, []byte(strings.Replace(string(data), fmt.Sprintf(`"schema": %d`, artifact.Schema), `"schema": 99`, 1)), 0o644)
	for _, tc := range []struct {
		file string
		o    EntryOptions
		want string
	}{
		{newer, EntryOptions{Commit: "abc"}, newer + ": schema 99 is not supported"},
		{f, EntryOptions{}, "no commit"},
		{f, EntryOptions{Commit: "abc", Night: "yesterday"}, `--night "yesterday"`},
	} {
		if _, err := ReadEntry(tc.file, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: %v, want %q", tc.file, tc.o, err, tc.want)
		}
	}
	if got := ToolRevision("bench-bridge v1.0.0 0123456789ab"); got != "0123456789ab" {
		t.Errorf("the tool's revision: %q", got)
	}
	if got := ToolRevision("bench-bridge v1.0.0 0123456789ab+dirty"); got != "" {
		t.Errorf("a dirty tree's revision: %q, want none", got)
	}
}
