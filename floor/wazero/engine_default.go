//go:build !bb_wazero_interp

package main

// interpreter is false: this program is the floor wazero, wazero's compiler where it has one.
const interpreter = false
