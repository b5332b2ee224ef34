package hint

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestFixThroughWrapping(t *testing.T) {
	err := fmt.Errorf("target webos: %w", With(fs.ErrNotExist, "apt-get install gcc-arm-linux-gnueabi"))
	if got := Of(err); got != "apt-get install gcc-arm-linux-gnueabi" {
		t.Errorf("Of = %q", got)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the wrapped error is lost: %v", err)
	}
	if want := "target webos: file does not exist\nhint: apt-get install gcc-arm-linux-gnueabi"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	// A second line that is not a Fix's hint is not a hint, whatever it says.
	if got := Of(errors.New("cc: error\nfix: rm -rf /")); got != "" {
		t.Errorf("Of took text for a hint: %q", got)
	}
	if With(nil, "x") != nil {
		t.Error("With(nil) is not nil")
	}
}
