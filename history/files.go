package history

// ReadEntries reads every artifact file as an entry (ReadEntry), or fails at the first that cannot be kept, naming
// it: history add records all of them or none.
func ReadEntries(files []string, o EntryOptions) ([]Entry, error) {
	entries := make([]Entry, 0, len(files))
	for _, f := range files {
		e, err := ReadEntry(f, o)
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// Added is how many of an Add's outcomes added their artifact.
func Added(out []Outcome) int {
	n := 0
	for _, oc := range out {
		if oc.Added {
			n++
		}
	}
	return n
}
