//go:build bb_wazero_interp

package main

// interpreter is true: this program is the floor wazero-interp, wazero's interpreter everywhere.
const interpreter = true
