package history

import (
	"context"
	"database/sql"
	"math"
	"strconv"
	"strings"
	"time"
)

// History is everything a store holds, read at once: its series and their nights in order.
type History struct {
	Series []Series
	// Acks are the changes acknowledged (history ack), oldest first.
	Acks []Ack
}

// Series is one device, program and build, with its nights oldest first.
type Series struct {
	SeriesKey
	Device Device
	Nights []Night
}

// Night is one artifact of a series.
type Night struct {
	Night     string // YYYY-MM-DD
	Revision  string
	StartedAt time.Time
	File      string
	Slowdown  float64
	Results   []Result
}

// Result is one case of one night. A number the artifact did not carry is NaN.
type Result struct {
	Case                        string
	Ratio, RatioLow, RatioHigh  float64
	ProcessRatios               []float64
	MedianNs, MedianLowNs       float64
	MedianHighNs                float64
	Instructions, Allocs, Bytes float64
}

// Result returns the night's result of case name, or nil.
func (n *Night) Result(name string) *Result {
	for i := range n.Results {
		if n.Results[i].Case == name {
			return &n.Results[i]
		}
	}
	return nil
}

// Load reads the whole history: every series of every device, every night oldest first, every case.
func (s *Store) Load(ctx context.Context) (*History, error) {
	h := &History{}
	err := s.inTx(ctx, "read", func(tx *sql.Tx) error {
		seriesAt := map[int64]int{}
		rows, err := tx.QueryContext(ctx, `SELECT s.id, d.key, d.target, d.description, s.program, s.compiler, s.quickjs, s.build
			FROM series s JOIN devices d ON d.id = s.device_id ORDER BY d.key, s.program, s.compiler, s.quickjs, s.build`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var se Series
			if err := rows.Scan(&id, &se.Device.Key, &se.Device.Target, &se.Device.Description, &se.Program, &se.Compiler, &se.QuickJS, &se.Build); err != nil {
				rows.Close()
				return err
			}
			se.SeriesKey.Device = se.Device.Key
			seriesAt[id] = len(h.Series)
			h.Series = append(h.Series, se)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		nightAt, err := loadNights(ctx, tx, h, seriesAt)
		if err != nil {
			return err
		}
		if err := loadResults(ctx, tx, h, nightAt); err != nil {
			return err
		}
		return loadAcks(ctx, tx, h)
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// nightRef is where a night is in a History.
type nightRef struct{ series, night int }

func loadNights(ctx context.Context, tx *sql.Tx, h *History, seriesAt map[int64]int) (map[int64]nightRef, error) {
	rows, err := tx.QueryContext(ctx, "SELECT id, series_id, night, revision, started_at, file, slowdown FROM nights ORDER BY night, started_at, id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	nightAt := map[int64]nightRef{}
	for rows.Next() {
		var id, series int64
		var n Night
		var started string
		if err := rows.Scan(&id, &series, &n.Night, &n.Revision, &started, &n.File, &n.Slowdown); err != nil {
			return nil, err
		}
		n.StartedAt, _ = time.Parse(time.RFC3339Nano, started)
		si := seriesAt[series]
		nightAt[id] = nightRef{si, len(h.Series[si].Nights)}
		h.Series[si].Nights = append(h.Series[si].Nights, n)
	}
	return nightAt, rows.Err()
}

func loadResults(ctx context.Context, tx *sql.Tx, h *History, nightAt map[int64]nightRef) error {
	rows, err := tx.QueryContext(ctx, `SELECT night_id, name, ratio, ratio_low, ratio_high, process_ratios, median_ns, median_low_ns,
		median_high_ns, instructions, allocs, bytes FROM results ORDER BY night_id, name`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var r Result
		var ratios string
		var f [9]sql.NullFloat64
		if err := rows.Scan(&id, &r.Case, &f[0], &f[1], &f[2], &ratios, &f[3], &f[4], &f[5], &f[6], &f[7], &f[8]); err != nil {
			return err
		}
		for i, p := range []*float64{&r.Ratio, &r.RatioLow, &r.RatioHigh, &r.MedianNs, &r.MedianLowNs, &r.MedianHighNs, &r.Instructions, &r.Allocs, &r.Bytes} {
			*p = math.NaN()
			if f[i].Valid {
				*p = f[i].Float64
			}
		}
		for _, w := range strings.Fields(ratios) {
			if v, err := strconv.ParseFloat(w, 64); err == nil {
				r.ProcessRatios = append(r.ProcessRatios, v)
			}
		}
		ref := nightAt[id]
		n := &h.Series[ref.series].Nights[ref.night]
		n.Results = append(n.Results, r)
	}
	return rows.Err()
}
