package runner

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/targets"
)

// listTimeout bounds the program's `list`: it prints names and exits.
const listTimeout = time.Minute

// ListCases asks the program which cases it implements (`PROG list`, docs/protocol.md).
func ListCases(ctx context.Context, t targets.Target, remote string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	var out bytes.Buffer
	var stderr tailBuffer
	if err := t.Run(ctx, remote, []string{"list"}, &out, &stderr); err != nil {
		return nil, fmt.Errorf("the program's list: %w (stderr: %s)", err, stderr.tail())
	}
	names := strings.Fields(out.String())
	if len(names) == 0 {
		return nil, fmt.Errorf("the program's list printed no case (docs/protocol.md; bench-bridge check PROG)")
	}
	return names, nil
}

// Implemented splits the cases asked for into those the program lists, in the order asked, and those it does not.
func Implemented(asked, listed []string) (run, missing []string) {
	for _, n := range asked {
		if slices.Contains(listed, n) {
			run = append(run, n)
		} else {
			missing = append(missing, n)
		}
	}
	return run, missing
}
