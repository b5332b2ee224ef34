package runner

import (
	"strings"
	"testing"
)

func TestParseLine(t *testing.T) {
	good := []struct {
		line string
		want record
	}{
		{"bench-bridge-protocol 1", record{kind: "bench-bridge-protocol", a: 1}},
		{"meta compiler gcc 12.2.0 (Debian)", record{kind: "meta", key: "compiler", text: "gcc 12.2.0 (Debian)"}},
		{"timer_overhead_ns 21.5", record{kind: "timer_overhead_ns", f: 21.5}},
		{"calibrated callback 1200", record{kind: "calibrated", name: "callback", a: 1200}},
		{"sample callback 1200 52000000", record{kind: "sample", name: "callback", a: 1200, b: 52000000}},
		{"error callback TypeError: not a function", record{kind: "error", name: "callback", text: "TypeError: not a function"}},
		{"loop callback 10 20", record{kind: "loop", name: "callback", a: 10, b: 20}},
		{"ref callback 300 12000", record{kind: "ref", name: "callback", a: 300, b: 12000}},
		{"slowdown callback 4.0625 40.5", record{kind: "slowdown", name: "callback", f: 4.0625, g: 40.5}},
		{"meta\tkey\tvalue with\ttabs", record{kind: "meta", key: "key", text: "value with\ttabs"}},
		{"sample\tX 9223372036854775807 9223372036854775807\r", record{kind: "sample", name: "X", a: 9223372036854775807, b: 9223372036854775807}},
		{"timer_overhead_ns 1e-300", record{kind: "timer_overhead_ns", f: 1e-300}},
	}
	for _, g := range good {
		got, err := parseLine(g.line)
		if err != nil || got != g.want {
			t.Errorf("parseLine(%q) = %+v, %v; want %+v", g.line, got, err, g.want)
		}
	}
	bad := map[string]string{
		"":                               "empty line",
		"hello world":                    "unknown record",
		"sample callback 10":             "wants 4 fields",
		"sample callback 0 10":           "OPS is 0, want at least 1",
		"sample callback x 10":           `OPS "x": want an integer`,
		"end callback extra":             "wants 2 fields",
		"calibrated callback 1e3":        `N "1e3": want an integer`,
		"calibrated callback -5":         `N "-5": want an integer of at least 1`,
		"slowdown callback -1 40":        "want a finite non-negative",
		"slowdown callback NaN 4":        "want a finite non-negative",
		"timer_overhead_ns NaN":          "want a finite non-negative",
		"timer_overhead_ns Inf":          "want a finite non-negative",
		"timer_overhead_ns -1e308":       "want a finite non-negative",
		"timer_overhead_ns 0x1p-2":       "want a finite non-negative",
		"timer_overhead_ns 1e309":        "out of range",
		"sample X 9223372036854775808 1": "out of range",
		"sample\u00a0X 1 1":              "unknown record",
	}
	for line, want := range bad {
		if _, err := parseLine(line); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseLine(%q) error %v, want one containing %q", line, err, want)
		}
	}
}

func TestParseMemoryRecords(t *testing.T) {
	r, err := parseLine("memory callback ops=64 engine_allocs=10 engine_bytes=400 host_allocs=0 host_bytes=0 heap_bytes=70000 heap_allocs=900")
	if err != nil || r.kind != "memory" || r.name != "callback" || r.mem == nil {
		t.Fatalf("parseLine(memory) = %+v, %v", r, err)
	}
	if m := r.mem; m.Ops != 64 || *m.EngineAllocs != 10 || *m.EngineBytes != 400 || *m.HostAllocs != 0 || *m.HeapAllocs != 900 {
		t.Errorf("memory counts %+v", *m)
	}
	// A user bridge reports what it has: only ops and the host's.
	r, err = parseLine("memory callback ops=1 host_allocs=3")
	if err != nil || r.mem.EngineAllocs != nil || *r.mem.HostAllocs != 3 {
		t.Errorf("partial memory record: %+v, %v", r.mem, err)
	}
	if r, err := parseLine("rss 3039232"); err != nil || r.kind != "rss" || r.a != 3039232 {
		t.Errorf("parseLine(rss) = %+v, %v", r, err)
	}
	bad := map[string]string{
		"memory callback":                                       "wants 3 fields",
		"memory callback engine_allocs=1":                       "want ops=N with N positive",
		"memory callback ops=0":                                 "want ops=N with N positive",
		"memory callback ops=4 engine_allocs=-1":                "engine_allocs: \"-1\" is not a non-negative integer",
		"memory callback ops=4 engine_bytes=NaN":                "engine_bytes: \"NaN\" is not a non-negative integer",
		"memory callback ops=4 engine_bytes=Inf":                "is not a non-negative integer",
		"memory callback ops=4 host_bytes=1e3":                  "is not a non-negative integer",
		"memory callback ops=4 host_bytes=99999999999999999999": "host_bytes: \"99999999999999999999\" does not fit in 64 bits",
		"memory callback ops=4 host_bytes=":                     "is not a non-negative integer",
		"memory callback ops=4 ops=5":                           "key ops given twice",
		"memory callback ops=4 allocs=5":                        "unknown key \"allocs\"",
		"memory callback ops=4 host_allocs":                     "want KEY=VALUE",
		"rss":                                                   "rss record wants 2 fields",
		"rss -5":                                                "rss record: \"-5\" is not a non-negative integer",
		"rss 12 13":                                             "rss record wants 2 fields",
		"rss 18446744073709551616":                              "does not fit in 64 bits",
	}
	for line, want := range bad {
		_, err := parseLine(line)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), strings.Fields(line)[0]+" record") {
			t.Errorf("parseLine(%q) error %v, want one naming the record and containing %q", line, err, want)
		}
	}
}

// TestEveryRecordIsOfACaseOrOfNone: each record of the protocol is classified, so that a new record cannot be left
// out of NamesCase, through which the runner and check read a record's case.
func TestEveryRecordIsOfACaseOrOfNone(t *testing.T) {
	ofCase := map[string]bool{"bench-bridge-protocol": false, "meta": false, "timer_overhead_ns": false, "rss": false,
		"cpu": false, "begin": true, "calibrated": true, "sample": true, "error": true, "end": true, "loop": true,
		"ref": true, "slowdown": true, "memory": true}
	for kind := range fieldCount {
		want, known := ofCase[kind]
		if !known {
			t.Errorf("record %q: say here whether it names a case, and in NamesCase", kind)
		} else if NamesCase(kind) != want {
			t.Errorf("NamesCase(%q) = %v, want %v", kind, NamesCase(kind), want)
		}
	}
	for kind := range ofCase {
		if !IsRecord(kind) {
			t.Errorf("%q is no longer a record: take it out of this test", kind)
		}
	}
	if r, err := parseLine("sample callback 10 200"); err != nil || r.name != "callback" {
		t.Errorf("sample's case: %q, %v", r.name, err)
	}
	if r, err := parseLine("meta engine quickjs"); err != nil || r.name != "" || r.key != "engine" {
		t.Errorf("meta names a case: %q, %v", r.name, err)
	}
}
