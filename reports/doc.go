// Package reports renders analysis's table of artifacts side by side, one function per format as hyperfine's
// export/: text and markdown (through Document, which show, compare and gate print), html, csv, json, benchstat
// (the samples of the table's artifacts) and the chart. Every format renders the same table, its warnings and notes
// included; reports decides nothing.
package reports
