package artifact

import "fmt"

// FormatNs renders nanoseconds with three significant digits and a unit: 26.3ns, 4.21µs, 105ms.
func FormatNs(ns float64) string {
	units := []struct {
		scale float64
		name  string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}}
	for _, u := range units {
		if ns >= 0.9995*u.scale || u.scale == 1 {
			return threeDigits(ns/u.scale) + u.name
		}
	}
	return ""
}

// threeDigits prints v with three significant digits and no exponent.
func threeDigits(v float64) string {
	switch {
	case v >= 99.95:
		return fmt.Sprintf("%.0f", v)
	case v >= 9.995:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
