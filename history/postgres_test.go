package history

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// The PostgreSQL the tests use: Debian's server, started once for the package in a directory of its own, on a unix
// socket in that directory (no TCP port), and stopped by TestMain.
var pg struct {
	once    sync.Once
	dir     string
	bin     string
	asUser  []string // the command prefix that runs a server program as its owner
	skip    string   // why there is no server, when there is none
	err     error
	counter int
	mu      sync.Mutex
}

func TestMain(m *testing.M) {
	code := m.Run()
	stopPostgres()
	os.Exit(code)
}

// postgresURL returns the URL of a new, empty database of the package's server, starting the server on first use.
// Without Debian's postgresql the test fails under CI and is skipped elsewhere, saying what to install.
func postgresURL(t *testing.T) string {
	t.Helper()
	pg.once.Do(startPostgres)
	if pg.skip != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(pg.skip)
		}
		t.Skip(pg.skip)
	}
	if pg.err != nil {
		t.Fatal(pg.err)
	}
	pg.mu.Lock()
	pg.counter++
	name := fmt.Sprintf("history_%d", pg.counter)
	pg.mu.Unlock()
	db, err := sql.Open("pgx", pgURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return pgURL(name)
}

func pgURL(db string) string {
	return fmt.Sprintf("postgres://bench@/%s?host=%s&sslmode=disable", db, pg.dir)
}

// startPostgres makes a cluster with initdb and starts it with pg_ctl; as root, both run as nobody, since initdb
// refuses root.
func startPostgres() {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		pg.skip = "PostgreSQL is not installed: apt-get install postgresql (scripts/setup installs it)"
		return
	}
	slices.Sort(found)
	pg.bin = filepath.Dir(found[len(found)-1])
	dir, err := os.MkdirTemp("", "bench-bridge-pg-")
	if err != nil {
		pg.err = err
		return
	}
	pg.dir = dir
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			pg.err = fmt.Errorf("running PostgreSQL as root's stand-in: %w", err)
			return
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			pg.err = err
			return
		}
		pg.asUser = []string{"runuser", "-u", "nobody", "--"}
	}
	data := filepath.Join(dir, "data")
	if out, err := pgCommand("initdb", "-D", data, "-U", "bench", "--auth=trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		pg.err = fmt.Errorf("initdb: %v\n%s", err, out)
		return
	}
	opts := "-k " + dir + " -c listen_addresses= -c fsync=off -c max_connections=40"
	if out, err := pgCommand("pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		pg.err = fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
}

// pgCommand is a server program of the installed PostgreSQL, run as the cluster's owner.
func pgCommand(name string, args ...string) *exec.Cmd {
	argv := append(slices.Clone(pg.asUser), filepath.Join(pg.bin, name))
	return exec.Command(argv[0], append(argv[1:], args...)...)
}

func stopPostgres() {
	if pg.dir == "" {
		return
	}
	if pg.bin != "" {
		pgCommand("pg_ctl", "-D", filepath.Join(pg.dir, "data"), "-m", "immediate", "-w", "stop").Run()
	}
	os.RemoveAll(pg.dir)
}
