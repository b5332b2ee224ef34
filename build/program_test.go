package build

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestEveryCodecBuildsAndSaysWhichItIs builds the reference bridge once per codec and checks that the binary runs a
// crossing case (its set-up checks the results) and reports the codec it was built for, which the artifact records.
func TestEveryCodecBuildsAndSaysWhichItIs(t *testing.T) {
	testenv.Require(t, "gcc", "apt-get install gcc (scripts/setup does it)")
	ctx := context.Background()
	src, err := QuickJSSource(ctx, "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	tc := Host()
	lib, err := BuildQuickJS(ctx, tc, src, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, codec := range Codecs {
		prog, err := BuildProgram(ctx, tc, lib, artifact.ProgramBridge, codec, io.Discard)
		if err != nil {
			t.Fatalf("codec %s: %v", codec, err)
		}
		// The same sources, library and flags are the same cached binary: no rebuild, whatever the order of a map.
		if again, err := BuildProgram(ctx, tc, lib, artifact.ProgramBridge, codec, io.Discard); err != nil || again.Path != prog.Path {
			t.Errorf("codec %s built again: %v, %v; want the cached %s", codec, again, err, prog.Path)
		}
		out, err := exec.Command(prog.Path, "run", "--samples", "1", "--min-time-ns", "1000000", "--warmup-ns", "0",
			"script_to_host_scalar", "script_to_host_object").CombinedOutput()
		if err != nil {
			t.Fatalf("codec %s: %v\n%s", codec, err, out)
		}
		text := string(out)
		if !strings.Contains(text, "meta codec "+codec+"\n") || strings.Contains(text, "\nerror ") ||
			strings.Count(text, "\nsample ") != 2 {
			t.Errorf("codec %s: want meta codec %s and one sample per case, got:\n%s", codec, codec, text)
		}
	}
	if _, err := BuildProgram(ctx, tc, lib, artifact.ProgramBridge, "yaml", io.Discard); err == nil ||
		!strings.Contains(err.Error(), "have json, fast, binary") {
		t.Errorf("unknown codec: err = %v, want the codecs listed", err)
	}
}
