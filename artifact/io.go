package artifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// Read loads and validates the artifact at path. Every error names the file and, where it can, the line, column or
// field where the input broke.
func Read(path string) (*Artifact, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// Parse decodes and validates an artifact.
func Parse(data []byte) (*Artifact, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty file, not a bench-bridge artifact")
	}
	// Look at the schema first, so that foreign JSON gets a plain answer rather than a type error deep inside.
	var head struct {
		Schema *int `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, describe(data, err)
	}
	switch {
	case head.Schema == nil:
		return nil, errors.New("no \"schema\" key: not a bench-bridge artifact")
	case *head.Schema != Schema:
		return nil, fmt.Errorf("schema %d is not supported (this bench-bridge reads schema %d)", *head.Schema, Schema)
	}
	var a Artifact
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, describe(data, err)
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	return &a, nil
}

// describe turns a decoding error into one that says where the input broke.
func describe(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || (errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimSpace(data)))):
		line, col := position(data, int64(len(data)))
		return fmt.Errorf("line %d, column %d: truncated JSON (the file ends inside a value)", line, col)
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return fmt.Errorf("line %d, column %d: %v", line, col, syn)
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		return fmt.Errorf("line %d, column %d: field %q: JSON %s where %s was expected", line, col, typ.Field, typ.Value, typ.Type)
	}
	return err
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// Validate checks what the schema promises beyond JSON types, naming the field that breaks it.
func (a *Artifact) Validate() error {
	if a.Target == "" {
		return errors.New("field \"target\" is empty")
	}
	if a.Program != ProgramBridge && a.Program != ProgramFloor {
		return fmt.Errorf("field \"program\" is %q, want %q or %q", a.Program, ProgramBridge, ProgramFloor)
	}
	seen := map[string]bool{}
	for i, c := range a.Cases {
		where := fmt.Sprintf("cases[%d]", i)
		if c.Name == "" {
			return fmt.Errorf("%s: field \"name\" is empty", where)
		}
		where = fmt.Sprintf("cases[%d] (%s)", i, c.Name)
		if seen[c.Name] {
			return fmt.Errorf("%s: case appears twice", where)
		}
		seen[c.Name] = true
		if len(c.SamplesNs) == 0 {
			return fmt.Errorf("%s: field \"samples_ns\" is empty", where)
		}
		for j, s := range c.SamplesNs {
			if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
				return fmt.Errorf("%s: samples_ns[%d] is %v, want a non-negative number", where, j, s)
			}
		}
		if !(c.MedianNs > 0) {
			return fmt.Errorf("%s: field \"median_ns\" is %v, want a positive number", where, c.MedianNs)
		}
		if c.CILowNs > c.MedianNs || c.CIHighNs < c.MedianNs {
			return fmt.Errorf("%s: interval [%v, %v] does not contain median_ns %v", where, c.CILowNs, c.CIHighNs, c.MedianNs)
		}
	}
	return nil
}

// Write stores a as indented JSON at path atomically: a reader sees the old file or the new one, never a part.
func Write(path string, a *Artifact) error {
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding artifact for %s: %w", path, err)
	}
	data = append(data, '\n')
	return WriteFileAtomic(path, data)
}

// WriteFileAtomic writes data to a temporary file beside path, syncs it and renames it over path.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
