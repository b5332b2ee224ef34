//go:build tools

package benchbridge

// The Wasmtime floor links the C library that this module carries (engines.WasmtimeModule): importing it here, in a
// file no build compiles, keeps it in go.mod and go.sum, so that the go command fetches it checked against go.sum.
import _ "github.com/bytecodealliance/wasmtime-go/v37"
