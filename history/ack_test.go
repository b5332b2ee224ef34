package history

import (
	"context"
	"testing"
)

// TestAcksAndTheSchema1Store: a store of schema 1 (no acks) is converted on open and keeps its nights; an
// acknowledgement comes back with its note, a second one of the same change replaces it, and one without a note is
// refused. On both backends.
func TestAcksAndTheSchema1Store(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			loc := b.make(t)
			s := open(t, loc)
			if _, err := s.Add(ctx, entries(t, EntryOptions{Commit: "c0ffee"}, writeNight(t, t.TempDir(), nightN("linux", "cpu A", 0, 50))), AddOptions{}); err != nil {
				t.Fatal(err)
			}
			// What schema 1 was: no acks table.
			for _, q := range []string{"DROP TABLE acks", "UPDATE history_meta SET value = '1' WHERE name = 'schema'"} {
				if _, err := s.db.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			s = open(t, loc)
			var schema string
			if err := s.db.QueryRowContext(ctx, "SELECT value FROM history_meta WHERE name = 'schema'").Scan(&schema); err != nil || schema != "2" {
				t.Fatalf("schema after opening a schema 1 store: %q (%v), want 2", schema, err)
			}
			if err := s.Acknowledge(ctx, Ack{Program: "mine bridge", Case: "callback", Metric: "ratio", To: "c30", Note: " "}); err == nil {
				t.Error("an acknowledgement without a note was kept")
			}
			for _, note := range []string{"first", "the new codec costs this, on purpose"} {
				if err := s.Acknowledge(ctx, Ack{Program: "mine bridge", Case: "callback", Metric: "ratio", To: "c30", Note: note}); err != nil {
					t.Fatal(err)
				}
			}
			h, err := s.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Series) != 1 || len(h.Series[0].Nights) != 1 || len(h.Acks) != 1 || h.Acks[0].Note != "the new codec costs this, on purpose" || h.Acks[0].At.IsZero() {
				t.Errorf("after the conversion: %d series, acks %+v", len(h.Series), h.Acks)
			}
		})
	}
}
