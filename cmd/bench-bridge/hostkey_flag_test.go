package main

import (
	"io"
	"slices"
	"testing"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/targets"
)

// TestAcceptHostKeyFlag: --accept-host-key takes a fingerprint after = or as the next word; bare (last, or before
// a target name) it asks for the fingerprint instead of taking the next word.
func TestAcceptHostKeyFlag(t *testing.T) {
	const fp = "SHA256:uYmifewnQXSxUTgzW60hrZfcmzfu6U96sYUARPMbth0"
	for _, tc := range []struct {
		args     []string
		accept   string
		wantArgs []string
	}{
		{[]string{"webos", "--accept-host-key", fp}, fp, []string{"webos"}},
		{[]string{"--accept-host-key", fp, "webos"}, fp, []string{"webos"}},
		{[]string{"webos", "--accept-host-key=" + fp}, fp, []string{"webos"}},
		{[]string{"webos", "--accept-host-key"}, targets.AcceptHostKeyUnchecked, []string{"webos"}},
		{[]string{"--accept-host-key", "webos"}, targets.AcceptHostKeyUnchecked, []string{"webos"}},
		{[]string{"webos"}, "", []string{"webos"}},
		{[]string{"webos", "--", "--accept-host-key", fp}, "", []string{"webos", "--accept-host-key", fp}},
	} {
		var o targets.Overrides
		var got []string
		cmd := &cobra.Command{Use: "x", RunE: func(_ *cobra.Command, args []string) error { got = args; return nil }}
		cmd.SetOut(io.Discard)
		registerDeviceFlags(cmd.Flags(), &o)
		cmd.SetArgs(joinAcceptHostKey(tc.args))
		if err := cmd.Execute(); err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if o.AcceptHostKey != tc.accept || !slices.Equal(got, tc.wantArgs) {
			t.Errorf("%q: accept %q, args %q; want %q, %q", tc.args, o.AcceptHostKey, got, tc.accept, tc.wantArgs)
		}
	}
}
