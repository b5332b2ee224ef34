package cases

import (
	"fmt"
	"io"
	"strings"
)

// PreludeName is what `cases --script` takes for the prelude every case's script follows.
const PreludeName = "prelude"

// Write lists the catalogue as `bench-bridge cases` shows it: a line per case with what one op is and whether it
// crosses the boundary.
func Write(w io.Writer) {
	width := 0
	for _, c := range Catalogue {
		width = max(width, len(c.Name))
	}
	for _, c := range Catalogue {
		kind := "crossing"
		if !c.Crossing {
			kind = "no crossing"
		}
		fmt.Fprintf(w, "%-*s %-12s %s\n", width, c.Name, kind, c.Op)
	}
}

// WriteScript prints the JavaScript the case name evaluates, or the prelude's (PreludeName).
func WriteScript(w io.Writer, name string) error {
	var js string
	if name == PreludeName {
		s, err := LoadScripts()
		if err != nil {
			return err
		}
		js = s.Prelude
	} else {
		var err error
		if js, err = Script(name); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, strings.TrimRight(js, "\n")+"\n")
	return err
}
