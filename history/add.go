package history

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// AddOptions are how Add treats a night that the store already has, or one older than the ones it has.
type AddOptions struct {
	// Replace keeps the new artifact of a night that the series already has, instead of refusing it.
	Replace bool
	// Backfill accepts nights older than the series' newest: an import of old artifacts rather than a clock that
	// went backwards.
	Backfill bool
	// Now is the time the nights are checked against (a night after tomorrow is a clock gone wrong); zero is now.
	Now time.Time
}

// Outcome is what Add did with one entry.
type Outcome struct {
	Entry Entry
	// Added is false for an artifact the store already had (the same identity and bytes): nothing was added.
	Added bool
	// Replaced names the artifact that the entry replaced (AddOptions.Replace), or is empty.
	Replaced string
}

// ErrNightTwice is wrapped by the error of a night that the series already has from another artifact.
var ErrNightTwice = errors.New("night already kept")

// Add records entries in one transaction: all of them or none. Entries are added in the order of their nights, so
// the files of one call may come in any order. The same artifact again is not added twice; another artifact of a
// night its series already has, a night older than the series' newest (a clock that went backwards) and a night
// in the future are refused unless o says otherwise, naming the file.
func (s *Store) Add(ctx context.Context, entries []Entry, o AddOptions) ([]Outcome, error) {
	sorted := slices.Clone(entries)
	slices.SortStableFunc(sorted, func(a, b Entry) int {
		return cmp.Or(strings.Compare(a.Night, b.Night), a.Artifact.StartedAt.Compare(b.Artifact.StartedAt))
	})
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	latest := now.UTC().Add(24 * time.Hour).Format(nightLayout)
	var out []Outcome
	err := s.inTx(ctx, "add", func(tx *sql.Tx) error {
		out = out[:0]
		for _, e := range sorted {
			if e.Night > latest {
				return fmt.Errorf("%s: night %s is in the future (now is %s): the device's clock, or --night, is wrong", e.File, e.Night, now.UTC().Format(time.RFC3339))
			}
			oc, err := s.addOne(ctx, tx, e, o)
			if err != nil {
				return err
			}
			out = append(out, oc)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// addOne records e inside tx.
func (s *Store) addOne(ctx context.Context, tx *sql.Tx, e Entry, o AddOptions) (Outcome, error) {
	oc := Outcome{Entry: e}
	var sum, file string
	err := tx.QueryRowContext(ctx, "SELECT sha256, file FROM nights WHERE identity = $1", e.Identity).Scan(&sum, &file)
	switch {
	case err == nil && sum == e.SHA256:
		return oc, nil
	case err == nil:
		return oc, fmt.Errorf("%s: the history already has %s (added from %s) with other contents: one of the two files was changed", e.File, e.Identity, file)
	case !errors.Is(err, sql.ErrNoRows):
		return oc, err
	}
	seriesID, err := s.seriesID(ctx, tx, e)
	if err != nil {
		return oc, err
	}
	var oldID int64
	err = tx.QueryRowContext(ctx, "SELECT id, file FROM nights WHERE series_id = $1 AND night = $2", seriesID, e.Night).Scan(&oldID, &file)
	switch {
	case err == nil && !o.Replace:
		return oc, fmt.Errorf("%s: %w: the history has night %s of %s already, from %s; pass --replace to keep this artifact instead, or --night for another night",
			e.File, ErrNightTwice, e.Night, e.Series, file)
	case err == nil:
		if _, err := tx.ExecContext(ctx, "DELETE FROM results WHERE night_id = $1", oldID); err != nil {
			return oc, err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM nights WHERE id = $1", oldID); err != nil {
			return oc, err
		}
		oc.Replaced = file
	case !errors.Is(err, sql.ErrNoRows):
		return oc, err
	}
	var newest sql.NullString
	if err := tx.QueryRowContext(ctx, "SELECT MAX(night) FROM nights WHERE series_id = $1", seriesID).Scan(&newest); err != nil {
		return oc, err
	}
	if newest.Valid && newest.String > e.Night && !o.Backfill {
		return oc, fmt.Errorf("%s: night %s is older than the newest night of %s, %s: a clock that went backwards? pass --night for the right night, or --backfill to import old artifacts",
			e.File, e.Night, e.Series, newest.String)
	}
	var nightID int64
	a := e.Artifact
	err = tx.QueryRowContext(ctx, `INSERT INTO nights (series_id, night, identity, sha256, revision, started_at, added_at, file, slowdown)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
		seriesID, e.Night, e.Identity, e.SHA256, e.Revision, a.StartedAt.UTC().Format(time.RFC3339Nano),
		time.Now().UTC().Format(time.RFC3339), e.File, a.Settings.Slowdown).Scan(&nightID)
	if err != nil {
		return oc, err
	}
	if err := insertResults(ctx, tx, nightID, a); err != nil {
		return oc, fmt.Errorf("%s: %w", e.File, err)
	}
	oc.Added = true
	return oc, nil
}

// String names the series in messages: "json bridge on linux-3fa2c1d0 (gcc 12.2.0, QuickJS 2025-04-26)".
func (k SeriesKey) String() string {
	return fmt.Sprintf("%s on %s (%s, QuickJS %s)", k.Program, k.Device, k.Compiler, k.QuickJS)
}

// seriesID finds or makes e's device and series.
func (s *Store) seriesID(ctx context.Context, tx *sql.Tx, e Entry) (int64, error) {
	d := e.Device
	if _, err := tx.ExecContext(ctx, "INSERT INTO devices (key, target, description) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING",
		d.Key, d.Target, d.Description); err != nil {
		return 0, err
	}
	var deviceID, id int64
	if err := tx.QueryRowContext(ctx, "SELECT id FROM devices WHERE key = $1", d.Key).Scan(&deviceID); err != nil {
		return 0, err
	}
	k := e.Series
	if _, err := tx.ExecContext(ctx, `INSERT INTO series (device_id, program, compiler, quickjs, build) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (device_id, program, compiler, quickjs, build) DO NOTHING`, deviceID, k.Program, k.Compiler, k.QuickJS, k.Build); err != nil {
		return 0, err
	}
	err := tx.QueryRowContext(ctx, "SELECT id FROM series WHERE device_id = $1 AND program = $2 AND compiler = $3 AND quickjs = $4 AND build = $5",
		deviceID, k.Program, k.Compiler, k.QuickJS, k.Build).Scan(&id)
	return id, err
}

// insertResults records every case of a that was measured whole; a case cut short by the program's death is left
// out, as its numbers are not a night's.
func insertResults(ctx context.Context, tx *sql.Tx, nightID int64, a *artifact.Artifact) error {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO results (night_id, name, ratio, ratio_low, ratio_high, process_ratios,
		median_ns, median_low_ns, median_high_ns, instructions, allocs, bytes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, c := range a.Cases {
		if c.Partial {
			continue
		}
		var allocs, bytes *float64
		if m := c.Memory; m != nil {
			allocs, bytes = m.AllocsPerOp, m.BytesPerOp
		}
		ratios := make([]string, 0, len(c.Processes))
		for _, r := range c.ProcessRatios() {
			ratios = append(ratios, strconv.FormatFloat(r, 'g', -1, 64))
		}
		lo, hi := nullable(&c.PILowNs), nullable(&c.PIHighNs)
		if c.PILevel == 0 {
			lo, hi = nil, nil
		}
		if _, err := stmt.ExecContext(ctx, nightID, c.Name, nullable(c.RatioToRef), nullable(c.RatioPILow), nullable(c.RatioPIHigh),
			strings.Join(ratios, " "), c.MedianNs, lo, hi, nullable(c.InstructionsPerOp), nullable(allocs), nullable(bytes)); err != nil {
			return fmt.Errorf("case %s: %w", c.Name, err)
		}
	}
	return nil
}

// nullable is *v, or NULL for a number the artifact does not carry.
func nullable(v *float64) any {
	if v == nil || math.IsNaN(*v) {
		return nil
	}
	return *v
}
