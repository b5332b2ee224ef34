package targets

import (
	"bytes"
	"io"
	"path"
	"strconv"
	"strings"
	"sync"
)

// The remote side of the ssh and novacom targets is a POSIX shell (OpenSSH's login shell, webOS's busybox ash).
// Every word sent to it goes through shellQuote; nothing from a path or an argument is ever parsed by the shell.

// shellQuote quotes s as one word for a POSIX shell: inside single quotes nothing is special, and a single quote
// inside s closes the quoting, is written with a backslash, and opens it again.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellPath quotes a remote path, keeping a leading ~/ meaning the remote home directory.
func shellPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return `"$HOME"/` + shellQuote(rest)
	}
	if p == "~" {
		return `"$HOME"`
	}
	return shellQuote(p)
}

// shellWords quotes each word and joins them with spaces.
func shellWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

// pidMarker starts the line the run wrapper prints before it becomes the program.
const pidMarker = "bench-bridge-pid "

// runScript is the shell text that runs program with args in dir under prefix. The shell prints its pid, then execs
// the program, so the program keeps that pid: it is what a cancelled run kills (with its process group, since sshd
// makes the shell a session leader).
func runScript(dir string, prefix []string, program string, args []string) string {
	var b strings.Builder
	if dir != "" {
		b.WriteString("cd " + shellPath(dir) + " && ")
	}
	b.WriteString(`echo "` + pidMarker + `$$" && exec `)
	if len(prefix) > 0 {
		b.WriteString(shellWords(prefix) + " ")
	}
	b.WriteString(shellPath(program))
	if len(args) > 0 {
		b.WriteString(" " + shellWords(args))
	}
	return b.String()
}

// killScript kills the process group pid leads, or the process alone where the shell's kill has no groups.
func killScript(pid int) string {
	p := strconv.Itoa(pid)
	return "kill -9 -" + p + " 2>/dev/null || kill -9 " + p + " 2>/dev/null; true"
}

// mkdirScript makes a fresh directory under workdir and prints its path; old busyboxes may lack mktemp -d.
func mkdirScript(workdir string) string {
	w := shellPath(workdir)
	return "mkdir -p " + w + " && cd " + w + " && { d=$(mktemp -d bench-bridge.XXXXXX 2>/dev/null) || " +
		"{ d=bench-bridge.$$ && mkdir \"$d\"; }; } && echo \"$(pwd)/$d\""
}

// remoteJoin joins a remote directory and a file name with forward slashes, whatever the local system uses.
func remoteJoin(dir, name string) string { return path.Join(dir, name) }

// pidFilter passes a run's stdout through, minus the wrapper's first line, whose pid it keeps.
type pidFilter struct {
	w    io.Writer
	mu   sync.Mutex
	head []byte
	done bool
	pid  int
	got  chan struct{} // closed once the first line is in (or turned out not to be the marker)
}

func newPidFilter(w io.Writer) *pidFilter { return &pidFilter{w: w, got: make(chan struct{})} }

func (f *pidFilter) Write(p []byte) (int, error) {
	n := len(p)
	f.mu.Lock()
	if !f.done {
		f.head = append(f.head, p...)
		i := bytes.IndexByte(f.head, '\n')
		if i < 0 && len(f.head) < 64 {
			f.mu.Unlock()
			return n, nil
		}
		p = f.head
		if i >= 0 {
			if v, ok := strings.CutPrefix(string(f.head[:i]), pidMarker); ok {
				f.pid, _ = strconv.Atoi(strings.TrimSpace(v))
				p = f.head[i+1:]
			}
		}
		f.done, f.head = true, nil
		close(f.got)
	}
	f.mu.Unlock()
	if len(p) == 0 {
		return n, nil
	}
	if _, err := f.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// Pid returns the program's pid, or 0 when the wrapper's line has not arrived.
func (f *pidFilter) Pid() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pid
}
