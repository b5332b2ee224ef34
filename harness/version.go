package harness

import (
	"runtime/debug"
	"strings"
)

// ModuleVersion is the version of the module at path linked into this program, as its build information records it
// (the go.mod's requirement, or its replacement's), without the leading v: what a program's meta engine line says of
// an engine that is a Go module. "" when the program has no build information or no such module.
func ModuleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range info.Deps {
		if m.Path != path {
			continue
		}
		if m.Replace != nil && m.Replace.Version != "" {
			m = m.Replace
		}
		return strings.TrimPrefix(m.Version, "v")
	}
	return ""
}
