package profile

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	benchbridge "github.com/bench-bridge/bench-bridge"
)

// Parts are what the boundary report asks of a profile, in the order a summary shows them.
var Parts = []string{"number text", "allocation", "boundary", "interpreter", "kernel", "other"}

// Summary is a profile reduced to what a reader needs first.
type Summary struct {
	Tool  string             `json:"tool"`
	Top   []Frame            `json:"top"`
	Parts map[string]float64 `json:"parts_percent"`
	// Emulated is the run's emulated_reason when it ran under an emulator, whose profile it then is.
	Emulated string `json:"emulated,omitempty"`
}

// TopN is how many functions a summary lists.
const TopN = 12

// Summarize classifies every frame into a part and keeps the top functions.
func Summarize(tool string, frames []Frame) Summary {
	s := Summary{Tool: tool, Parts: map[string]float64{}}
	for _, f := range frames {
		s.Parts[Classify(f)] += f.Self
	}
	s.Top = frames[:min(TopN, len(frames))]
	return s
}

var (
	// numberText is formatting and parsing numbers as text: what a JSON boundary pays per value.
	numberText = regexp.MustCompile(`strtod|printf|_fp|dtoa|atod|atof|fcvt|ecvt|[iu](32|64)toa|fastParse|strtoencf|localeconv|mpn_|__mul|hexfloat|round_and_return|round_to_d|hack_digit`)
	// allocation is the allocator and the copies and clears it implies.
	allocation = regexp.MustCompile(`malloc|calloc|realloc|free$|^free|_int_free|_int_malloc|usable_size|madvise|mmap|munmap|brk|^mem(cpy|move|set)|__mem(cpy|move|set)|tcache|consolidate|unlink_chunk`)
	// interpreter is QuickJS: its public API, its internals and its libraries.
	interpreter = regexp.MustCompile(`^(JS_|js_|__JS_|JS[A-Z]|free_|gc_|mark_|lre_|unicode_|cr_|dbuf_|string_buffer_|json_|find_own_property|add_property|add_shape|add_fast_array|delete_property|set_array_length|expand_fast_array|convert_fast_array|resize_properties|get_shape|shape_|js_shape|async_func|build_|emit_|skip_|ident_)`)
	// cFunction finds function definitions in C source: a name at the start of a line followed by "(".
	cFunction = regexp.MustCompile(`(?m)^(?:static\s+)?(?:inline\s+)?(?:const\s+)?[A-Za-z_][A-Za-z0-9_]*[\s*]+\**([a-z_][A-Za-z0-9_]*)\(`)
)

// own are the functions of the bench programs' own sources: the boundary code, which a profile must name.
var own = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range slices.Concat([]string{benchbridge.Floor, benchbridge.CaseTable}, benchbridge.HarnessParts, benchbridge.BridgeSources) {
		src, err := benchbridge.CSources.ReadFile(f)
		if err != nil {
			continue
		}
		for _, match := range cFunction.FindAllStringSubmatch(string(src), -1) {
			m[match[1]] = true
		}
	}
	return m
}()

// Classify says which part a frame belongs to: the kernel; the bench program's own functions (the boundary code);
// number text and allocation, whoever calls them; then QuickJS.
func Classify(f Frame) string {
	sym := strings.Fields(f.Symbol + " x")[0]
	// Drop what linkers and compilers add: cfree@GLIBC_2.2.5, memcpy@plt, js_json_to_str.constprop.0.
	base := strings.SplitN(strings.SplitN(sym, "@", 2)[0], ".", 2)[0]
	switch {
	case f.Kernel || strings.HasPrefix(sym, "[k]") || strings.HasPrefix(sym, "entry_SYSCALL") || strings.HasPrefix(sym, "__x64_sys"):
		return "kernel"
	case own[base]:
		return "boundary"
	case numberText.MatchString(base):
		return "number text"
	case allocation.MatchString(base):
		return "allocation"
	case interpreter.MatchString(base):
		return "interpreter"
	}
	return "other"
}

// Write prints the summary for a terminal.
func (s Summary) Write(w io.Writer) {
	if s.Emulated != "" {
		fmt.Fprintf(w, "emulated (%s): this profiles the emulator, not a device\n", s.Emulated)
	}
	fmt.Fprintf(w, "top functions by self share (%s):\n", s.Tool)
	for _, f := range s.Top {
		fmt.Fprintf(w, "  %6.2f%%  %-40s %s\n", f.Self, f.Symbol, Classify(f))
	}
	fmt.Fprintln(w, "share by part:")
	for _, p := range Parts {
		if v, ok := s.Parts[p]; ok {
			fmt.Fprintf(w, "  %6.2f%%  %s\n", v, p)
		}
	}
}
