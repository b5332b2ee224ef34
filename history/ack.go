package history

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Ack is a change point someone acknowledged: the change of Program's Case by Metric whose first commit is To, with
// a note saying why it is known (an intended cost, a device's update). It stops alerting; it is still shown.
type Ack struct {
	Program, Case, Metric, To string
	Note                      string
	At                        time.Time
}

// acksTable is schema 2's addition: one row per acknowledged change.
const acksTable = `CREATE TABLE acks (program TEXT NOT NULL, case_name TEXT NOT NULL, metric TEXT NOT NULL,
	to_commit TEXT NOT NULL, note TEXT NOT NULL, added_at TEXT NOT NULL, PRIMARY KEY (program, case_name, metric, to_commit))`

// migrate converts a store of an older schema to this one, in the transaction that opened it.
func (s *Store) migrate(ctx context.Context, tx *sql.Tx, from int) error {
	if from < 2 {
		if _, err := tx.ExecContext(ctx, acksTable); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, "UPDATE history_meta SET value = $1 WHERE name = 'schema'", strconv.Itoa(Schema))
	return err
}

// Acknowledge keeps a (replacing the note of the same change, when it was acknowledged before).
func (s *Store) Acknowledge(ctx context.Context, a Ack) error {
	if strings.TrimSpace(a.Note) == "" {
		return errors.New("an acknowledgement needs a note: say why the change is known")
	}
	if a.At.IsZero() {
		a.At = time.Now()
	}
	return s.inTx(ctx, "acknowledge", func(tx *sql.Tx) error {
		key := []any{a.Program, a.Case, a.Metric, a.To}
		if _, err := tx.ExecContext(ctx, "DELETE FROM acks WHERE program = $1 AND case_name = $2 AND metric = $3 AND to_commit = $4", key...); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO acks (program, case_name, metric, to_commit, note, added_at) VALUES ($1, $2, $3, $4, $5, $6)",
			append(key, a.Note, a.At.UTC().Format(time.RFC3339))...)
		return err
	})
}

func loadAcks(ctx context.Context, tx *sql.Tx, h *History) error {
	rows, err := tx.QueryContext(ctx, "SELECT program, case_name, metric, to_commit, note, added_at FROM acks ORDER BY added_at, program, case_name")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var a Ack
		var at string
		if err := rows.Scan(&a.Program, &a.Case, &a.Metric, &a.To, &a.Note, &at); err != nil {
			return err
		}
		a.At, _ = time.Parse(time.RFC3339, at)
		h.Acks = append(h.Acks, a)
	}
	return rows.Err()
}
