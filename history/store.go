package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for postgres:// URLs
	"modernc.org/sqlite"
	_ "modernc.org/sqlite" // the "sqlite" driver, for files
)

// Schema is the version of the store's tables this package reads and writes. A store of a newer schema is refused
// (a newer bench-bridge wrote it); an older one is converted on open. Schema 2 added acknowledged changes (acks).
const Schema = 2

// kind is what the store's meta table says it is: a database with other tables is not a history.
const kind = "bench-bridge history"

// DefaultLockWait is how long a writer waits for another to finish before the store counts as held.
const DefaultLockWait = 30 * time.Second

// Store is an open history: one SQLite file or one PostgreSQL database.
type Store struct {
	db       *sql.DB
	where    string // the file, or the URL without its password: what errors name
	postgres bool
	lockWait time.Duration
}

// Options are how Open opens a store.
type Options struct {
	// LockWait is how long to wait for a store another process holds; 0 means DefaultLockWait.
	LockWait time.Duration
}

// IsURL reports whether location names a PostgreSQL server rather than a file.
func IsURL(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// DefaultLocation is the history when neither a location nor $BENCH_BRIDGE_HISTORY names one.
const DefaultLocation = "bench-bridge-history.db"

// Locate is the history a command opens: location (--store), else $BENCH_BRIDGE_HISTORY, else DefaultLocation.
func Locate(location string) string {
	if location == "" {
		location = os.Getenv("BENCH_BRIDGE_HISTORY")
	}
	if location == "" {
		location = DefaultLocation
	}
	return location
}

// Open opens the history at location, a file path (SQLite, created when missing) or a postgres:// URL, and makes
// its tables when it has none. A file that is not a database, a database that is not a history and a history of a
// newer schema are refused, naming the location.
func Open(ctx context.Context, location string, o Options) (*Store, error) {
	s := &Store{where: location, lockWait: o.LockWait}
	if s.lockWait <= 0 {
		s.lockWait = DefaultLockWait
	}
	var err error
	if IsURL(location) {
		s.postgres = true
		s.where = redact(location)
		s.db, err = sql.Open("pgx", location)
	} else {
		if strings.ContainsAny(location, "?#") {
			return nil, fmt.Errorf("history %s: a file name with ? or # in it is not supported", location)
		}
		if st, statErr := os.Stat(location); statErr == nil && st.IsDir() {
			return nil, fmt.Errorf("history %s: is a directory, want a file (or a postgres:// URL)", location)
		}
		dsn := location + "?_txlock=immediate&_busy_timeout=" + strconv.FormatInt(s.lockWait.Milliseconds(), 10) +
			"&_foreign_keys=1"
		s.db, err = sql.Open("sqlite", dsn)
	}
	if err != nil {
		return nil, s.wrap("open", err)
	}
	if err := s.prepare(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Where names the store as errors do: the file, or the URL without its password.
func (s *Store) Where() string { return s.where }

// prepare makes the tables of an empty store, or checks that a store is a history this package can read.
func (s *Store) prepare(ctx context.Context) error {
	return s.inTx(ctx, "open", func(tx *sql.Tx) error {
		if s.postgres {
			// Runners that open a new database at once would race to create the same tables.
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(4242424201)"); err != nil {
				return err
			}
		}
		tables, err := s.tables(ctx, tx)
		if err != nil {
			return err
		}
		if len(tables) == 0 {
			return s.create(ctx, tx)
		}
		if !slices.Contains(tables, "history_meta") {
			shown := tables[:min(len(tables), 5)]
			return fmt.Errorf("not a bench-bridge history: the database has other tables (%s) and no history_meta", strings.Join(shown, ", "))
		}
		meta := map[string]string{}
		rows, err := tx.QueryContext(ctx, "SELECT name, value FROM history_meta")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			meta[k] = v
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if meta["kind"] != kind {
			return fmt.Errorf("not a bench-bridge history: history_meta says kind %q", meta["kind"])
		}
		v, err := strconv.Atoi(meta["schema"])
		switch {
		case err != nil:
			return fmt.Errorf("history_meta: schema %q is not a number", meta["schema"])
		case v > Schema:
			return fmt.Errorf("history schema %d is newer than this bench-bridge reads (%d): use the bench-bridge that wrote it, or a newer one", v, Schema)
		case v < 1:
			return fmt.Errorf("history_meta: schema %d is not a version", v)
		case v < Schema:
			return s.migrate(ctx, tx, v)
		}
		return nil
	})
}

// tables lists the store's tables (in PostgreSQL, those of the current schema).
func (s *Store) tables(ctx context.Context, tx *sql.Tx) ([]string, error) {
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
	if s.postgres {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name"
	}
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// create makes the tables. A device is one machine; a series is one device, program and build (compiler, QuickJS,
// flags); a night is one artifact of a series, kept once (its identity) and one per night; a result is one case of
// a night. Floats that an artifact does not carry are NULL.
func (s *Store) create(ctx context.Context, tx *sql.Tx) error {
	id, num := "INTEGER PRIMARY KEY", "DOUBLE PRECISION"
	if s.postgres {
		id = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
	}
	stmts := []string{
		`CREATE TABLE history_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE devices (id ` + id + `, key TEXT NOT NULL UNIQUE, target TEXT NOT NULL, description TEXT NOT NULL)`,
		`CREATE TABLE series (id ` + id + `, device_id BIGINT NOT NULL REFERENCES devices(id), program TEXT NOT NULL,
			compiler TEXT NOT NULL, quickjs TEXT NOT NULL, build TEXT NOT NULL,
			UNIQUE (device_id, program, compiler, quickjs, build))`,
		`CREATE TABLE nights (id ` + id + `, series_id BIGINT NOT NULL REFERENCES series(id), night TEXT NOT NULL,
			identity TEXT NOT NULL UNIQUE, sha256 TEXT NOT NULL, revision TEXT NOT NULL, started_at TEXT NOT NULL,
			added_at TEXT NOT NULL, file TEXT NOT NULL, slowdown ` + num + ` NOT NULL,
			UNIQUE (series_id, night))`,
		`CREATE TABLE results (night_id BIGINT NOT NULL REFERENCES nights(id) ON DELETE CASCADE, name TEXT NOT NULL,
			ratio ` + num + `, ratio_low ` + num + `, ratio_high ` + num + `, process_ratios TEXT NOT NULL,
			median_ns ` + num + ` NOT NULL, median_low_ns ` + num + `, median_high_ns ` + num + `,
			instructions ` + num + `, allocs ` + num + `, bytes ` + num + `,
			PRIMARY KEY (night_id, name))`,
		acksTable,
		`INSERT INTO history_meta (name, value) VALUES ('kind', '` + kind + `'), ('schema', '` + strconv.Itoa(Schema) + `')`,
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// inTx runs f in one transaction, committed when f returns nil and rolled back otherwise; the error, if any, is
// wrapped to name the store and to say plainly what a locked, corrupt or foreign store is. A PostgreSQL transaction
// is serializable, so that what it read (no such artifact yet) still holds when it commits; one that lost a race with
// another writer is run again, and then sees the other's rows.
func (s *Store) inTx(ctx context.Context, op string, f func(*sql.Tx) error) error {
	var err error
	for attempt := 1; attempt <= 20; attempt++ {
		err = s.tryTx(ctx, f)
		if !s.postgres || !isConflict(err) {
			break
		}
		// Writers that collided wait apart before they try again.
		select {
		case <-time.After(time.Duration(attempt) * time.Duration(5+rand.IntN(20)) * time.Millisecond):
		case <-ctx.Done():
			return s.wrap(op, ctx.Err())
		}
	}
	if err != nil {
		return s.wrap(op, err)
	}
	return nil
}

func (s *Store) tryTx(ctx context.Context, f func(*sql.Tx) error) error {
	var opts *sql.TxOptions
	if s.postgres {
		opts = &sql.TxOptions{Isolation: sql.LevelSerializable}
	}
	tx, err := s.db.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	if s.postgres {
		// A transaction that waits on another's rows gives up as SQLite's busy timeout does.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL lock_timeout = %d", s.lockWait.Milliseconds())); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// isConflict reports whether err is PostgreSQL's unique violation or serialization failure: another writer's
// transaction got there first.
func isConflict(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "23505" || pg.Code == "40001" || pg.Code == "40P01")
}

// SQLite's primary result codes that get a plain explanation.
const (
	sqliteBusy    = 5
	sqliteLocked  = 6
	sqliteCorrupt = 11
	sqliteNotADB  = 26
)

// wrap names the store and the operation, and explains a locked, corrupt or foreign file.
func (s *Store) wrap(op string, err error) error {
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		switch lite.Code() & 0xff {
		case sqliteBusy, sqliteLocked:
			return fmt.Errorf("history %s: %s: another process holds the store (waited %s): %w; try again when it is done", s.where, op, s.lockWait, ErrLocked)
		case sqliteNotADB:
			return fmt.Errorf("history %s: not a bench-bridge history: the file is not a SQLite database (another kind of file, or a damaged one)", s.where)
		case sqliteCorrupt:
			return fmt.Errorf("history %s: %s: the file is damaged (SQLite: %v); restore it from where the history is kept between runs", s.where, op, err)
		}
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "55P03" {
		return fmt.Errorf("history %s: %s: another process holds the store: %w", s.where, op, ErrLocked)
	}
	return fmt.Errorf("history %s: %s: %w", s.where, op, err)
}

// ErrLocked is wrapped by the error of an operation that gave up waiting for another process's transaction.
var ErrLocked = errors.New("store locked")

// redact removes the password from a URL, for messages.
func redact(u string) string {
	at := strings.LastIndex(u, "@")
	scheme := strings.Index(u, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return u
	}
	cred := u[scheme+3 : at]
	if i := strings.Index(cred, ":"); i >= 0 {
		return u[:scheme+3] + cred[:i] + ":xxx" + u[at:]
	}
	return u
}
