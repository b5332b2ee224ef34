package targets

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"
)

// findLibraries prints each of its arguments (sonames) that none of the directories where a Linux dynamic loader
// looks by default holds. The names are arguments of the device's sh, never shell text.
const findLibraries = `for n in "$@"; do
  found=
  for d in /lib/*-linux-gnu* /usr/lib/*-linux-gnu* /lib64 /usr/lib64 /lib /usr/lib /usr/local/lib; do
    if [ -e "$d/$n" ]; then found=1; break; fi
  done
  [ -n "$found" ] || echo "$n"
done`

// libraryCheckTimeout bounds the check: one short shell command on the device.
const libraryCheckTimeout = 30 * time.Second

// MissingLibraries returns those of the shared libraries (sonames) that t's device has none of where its dynamic
// loader looks by default: what a dynamically linked program (a floor over a library engine of this machine) would
// fail to start without. An error is the transport's, not the answer.
func MissingLibraries(ctx context.Context, t Target, sonames []string) ([]string, error) {
	if len(sonames) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, libraryCheckTimeout)
	defer cancel()
	var out, errOut bytes.Buffer
	args := append([]string{"-c", findLibraries, "sh"}, sonames...)
	if err := t.Run(ctx, "sh", args, &out, &errOut); err != nil {
		return nil, fmt.Errorf("%s: looking for the shared libraries %s: %w %s", t.Name(), strings.Join(sonames, ", "), err,
			strings.TrimSpace(errOut.String()))
	}
	return strings.Fields(out.String()), nil
}
