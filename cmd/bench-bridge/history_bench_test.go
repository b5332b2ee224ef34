package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/history"
	"github.com/bench-bridge/bench-bridge/runner"
)

// benchNight is night n of device d as an entry: every case of the catalogue, three processes of three samples,
// each case's ratio drawn about a level of its own with 2% noise and a 10% step on every device at night 1000.
func benchNight(d, n int, rng *rand.Rand) history.Entry {
	names := cases.Names()
	start := time.Date(2020, 1, 1, 3, 0, 0, 0, time.UTC).AddDate(0, 0, n)
	a := &artifact.Artifact{Schema: artifact.Schema, Tool: "bench-bridge bench", Target: fmt.Sprintf("dev%d", d), Kind: artifact.ProgramBridge,
		Codec: "json", Device: artifact.Device{Arch: "x86_64", CPUModel: fmt.Sprintf("cpu %d", d), Cores: 2, Compiler: "gcc", QuickJS: "q"},
		Settings: artifact.Settings{Samples: 3, MinTimeNs: 1e6, Runs: 3}, StartedAt: start,
		Session: artifact.Session{ID: fmt.Sprintf("d%dn%d", d, n), Programs: []string{"json"}, Order: []int{0, 0, 0}}}
	raw := &runner.Raw{}
	for p := range 3 {
		rp := runner.RawProcess{Seq: p, Order: names, Protocol: 2}
		for ci, name := range names {
			per := 20.0
			if name != cases.RefCase {
				per = 20 * float64(5+ci) * math.Exp(0.02*rng.NormFloat64())
				if n >= 1000 {
					per *= 1.1
				}
			}
			rc := runner.RawCase{Name: name, Iterations: 1000}
			for s := range 3 {
				rc.Ops, rc.Ns = append(rc.Ops, 1000), append(rc.Ns, int64(per*1000)+int64(s))
				if name != cases.RefCase {
					rc.RefOps, rc.RefNs = append(rc.RefOps, 1000), append(rc.RefNs, 20_000+int64(s))
				}
			}
			rp.Cases = append(rp.Cases, rc)
		}
		raw.Processes = append(raw.Processes, rp)
	}
	runner.Assemble(a, raw, names)
	dev := history.DeviceOf(a, "")
	return history.Entry{File: a.Session.ID, Artifact: a, SHA256: a.Session.ID, Revision: fmt.Sprintf("r%05d", n),
		Night: start.Format("2006-01-02"), Device: dev, Series: history.SeriesOf(a, dev.Key), Identity: a.Session.ID}
}

// benchStore makes a history of 10,000 nights (four devices of 2,500) of every case in dir.
func benchStore(b testing.TB, dir string) string {
	b.Helper()
	store := filepath.Join(dir, "history.db")
	s, err := history.Open(context.Background(), store, history.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 2500; n += 100 {
		var batch []history.Entry
		for d := range 4 {
			for k := n; k < n+100; k++ {
				batch = append(batch, benchNight(d, k, rng))
			}
		}
		if _, err := s.Add(context.Background(), batch, history.AddOptions{Now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
			b.Fatal(err)
		}
	}
	return store
}

// BenchmarkHistoryChanges10000Nights times `history changes` over 10,000 stored nights of every case
// (docs/history.md has the numbers).
func BenchmarkHistoryChanges10000Nights(b *testing.B) {
	store := benchStore(b, b.TempDir())
	b.ResetTimer()
	for range b.N {
		fs := newFakes(false, false)
		if code := fs.run("history", "changes", "--store", store); code != 0 {
			b.Fatalf("exit %d\n%s", code, fs.stderr.String())
		}
	}
}

// BenchmarkHistoryAddOneNight times `history add` of one night's artifact into a store of 10,000 nights.
func BenchmarkHistoryAddOneNight(b *testing.B) {
	dir := b.TempDir()
	store := benchStore(b, dir)
	rng := rand.New(rand.NewPCG(3, 4))
	var files []string
	for i := range b.N {
		e := benchNight(0, 2500+i, rng)
		f := filepath.Join(dir, fmt.Sprintf("n%d.json", i))
		if err := artifact.Write(f, e.Artifact); err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	b.ResetTimer()
	for i := range b.N {
		fs := newFakes(false, false)
		if code := fs.run("history", "add", "--store", store, "--commit", fmt.Sprintf("x%d", i), files[i]); code != 0 {
			b.Fatalf("exit %d\n%s", code, fs.stderr.String())
		}
	}
}
