package reports

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bench-bridge/bench-bridge/analysis"
	"github.com/bench-bridge/bench-bridge/artifact"
)

// WritePictures writes the table's chart (an .svg or .png file) and its html page, atomically, each when its path is
// given ("" for none).
func WritePictures(table *analysis.Table, chart, html string) error {
	if chart != "" {
		ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(chart)), ".")
		if !slices.Contains(ChartFormats, ext) {
			return fmt.Errorf("--chart %s: want a file ending in .svg or .png", chart)
		}
		data, err := Chart(table, ext)
		if err != nil {
			return err
		}
		if err := artifact.WriteFileAtomic(chart, data); err != nil {
			return err
		}
	}
	if html != "" {
		var buf bytes.Buffer
		if err := Render(&buf, table, "html"); err != nil {
			return err
		}
		if err := artifact.WriteFileAtomic(html, buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
