package targets

import (
	"bytes"
	"context"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
)

// Every target but the local one runs commands through a POSIX shell on the device: mksh and toybox on Android,
// busybox ash on webOS and boards, bash or dash on a server. The scripts here use only what all of them have, fit on
// one line (novacom carries one line per command), and send every word through shellQuote: nothing from a path or
// an argument is ever parsed by the shell.

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

// runScript runs program with args in dir under prefix. The shell writes its pid to pidFile and then execs the
// program, which keeps that pid: it is what a cancelled run kills, with its process group. sshd and adbd make the
// shell a session leader; where the shell does not lead a process group of its own (kill -0 -$$ fails), setsid
// makes the program one without a fork, when the device has setsid.
func runScript(dir, pidFile string, prefix []string, program string, args []string) string {
	cmd := ""
	if len(prefix) > 0 {
		cmd = shellWords(prefix) + " "
	}
	cmd += shellPath(program)
	if len(args) > 0 {
		cmd += " " + shellWords(args)
	}
	return "cd " + shellPath(dir) + " || exit 127; echo $$ > " + shellPath(pidFile) + " || exit 127; " +
		"if ! kill -0 -$$ 2>/dev/null && command -v setsid >/dev/null 2>&1; then exec setsid " + cmd + "; fi; exec " + cmd
}

// killScript stops the program whose pid runScript wrote to pidFile, as devlib cancels a command: SIGTERM to its
// process group, a short wait, then SIGKILL. dash and busybox refuse `kill -TERM -- -PGID`, so the group is written
// -PGID right after the signal, and a pid that leads no group is signalled alone. The waits use fractions of a
// second where sleep takes them (toybox, busybox, coreutils) and whole seconds where it does not.
func killScript(pidFile string) string {
	f := shellPath(pidFile)
	return "if sleep 0.1 2>/dev/null; then t=0.1 k=20; else t=1 k=2; fi; " +
		"n=0; while [ ! -s " + f + " ] && [ $n -lt $k ]; do sleep $t; n=$((n+1)); done; " +
		"[ -s " + f + " ] || exit 0; p=$(cat " + f + "); " +
		"kill -TERM -$p 2>/dev/null || kill -TERM $p 2>/dev/null || exit 0; " +
		"n=0; while { kill -0 -$p || kill -0 $p; } 2>/dev/null && [ $n -lt $k ]; do sleep $t; n=$((n+1)); done; " +
		"kill -KILL -$p 2>/dev/null; kill -KILL $p 2>/dev/null; true"
}

// runDirPrefix starts the name of every run directory, so that one left behind is recognisable.
const runDirPrefix = "bench-bridge-"

// mkdirScript makes a fresh directory under workdir and prints its absolute path. The template is absolute so that
// every mktemp makes it there (toybox's puts a bare name in $TMPDIR); old busyboxes may lack mktemp -d.
func mkdirScript(workdir string) string {
	w := shellPath(workdir)
	return "mkdir -p " + w + " && cd " + w + " && { d=$(mktemp -d \"$(pwd)/" + runDirPrefix + "XXXXXX\" 2>/dev/null) || " +
		"{ d=\"$(pwd)/" + runDirPrefix + "$$\" && mkdir \"$d\"; }; } && echo \"$d\""
}

// remoteJoin joins a remote directory and a file name with forward slashes, whatever the local system uses.
func remoteJoin(dir, name string) string { return path.Join(dir, name) }

// shellPush uploads r to remote through the device's shell, where there is no sftp (dropbear). Only a whole upload
// takes remote's name: the bytes go to a file of the shell's own, which is renamed once it holds as many bytes as
// were sent. The same command can run twice: dropbear now and then closes a session right after it started the
// command (sshConn.start then opens another), and the first shell's cat, late, reads no input. Writing to remote
// itself, it truncated what the second had written, and the program or probe that ran next read part of a file
// (the board's probe failed with "sh: missing ]" under load).
func shellPush(ctx context.Context, tr transport, r io.Reader, remote string) error {
	n, r, err := sized(r)
	if err != nil {
		return err
	}
	return execOK(ctx, tr, uploadScript(remote, n), r, io.Discard)
}

// uploadScript reads n bytes from stdin into a file beside remote, then renames it to remote, or fails and removes it.
func uploadScript(remote string, n int64) string {
	p := shellPath(remote)
	return "t=" + p + ".part.$$; if cat > \"$t\" && [ $(wc -c < \"$t\") -eq " + strconv.FormatInt(n, 10) + " ] && mv -f \"$t\" " + p +
		"; then exit 0; fi; rm -f \"$t\"; echo 'the upload was cut short' >&2; exit 1"
}

// sized returns how many bytes r holds, and a reader of them: a file's size or a reader's length, else r read into
// memory.
func sized(r io.Reader) (int64, io.Reader, error) {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len()), r, nil
	case *os.File:
		fi, err := v.Stat()
		if err == nil && fi.Mode().IsRegular() {
			pos, err := v.Seek(0, io.SeekCurrent)
			if err == nil {
				return fi.Size() - pos, r, nil
			}
		}
	}
	b, err := io.ReadAll(r)
	return int64(len(b)), bytes.NewReader(b), err
}
