package specs

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ParseSize reads a memory size: a number of bytes, optionally with a unit: B, KB, MB, GB,
// TB (powers of 1000), KiB, MiB, GiB, TiB or K, M, G, T (powers of 1024). "1.5GiB" works.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	if num == "" {
		return 0, errors.New("want a size such as 4GiB, 512MiB or 1000000")
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, errors.New("want a size such as 4GiB, 512MiB or 1000000")
	}
	mult, ok := sizeUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q: want B, KB, MB, GB, TB, KiB, MiB, GiB or TiB", unit)
	}
	v := f * mult
	if v > math.MaxInt64/2 {
		return 0, errors.New("too large")
	}
	return int64(v), nil
}

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// FormatSize prints a byte count with a binary unit: "4.0GiB", "512.0MiB", "100B".
func FormatSize(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1024 {
		return strconv.FormatInt(n, 10) + "B"
	}
	f := float64(n) / 1024
	u := 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + units[u]
}

// ParseDuration reads a time budget as Go writes durations ("10m", "1h30m", "90s").
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, errors.New("want a duration such as 90s, 10m or 1h30m")
	}
	if d < 0 {
		return 0, errors.New("must not be negative")
	}
	return d, nil
}

// formatValue prints a decoded TOML value as it would be written in TOML.
func formatValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case time.Time:
		return v.Format(time.RFC3339Nano)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = formatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []map[string]any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = formatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " = " + formatValue(v[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case nil:
		return "nothing"
	}
	return fmt.Sprint(v)
}

// typeName names the TOML type of a decoded value, for error messages.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case time.Time:
		return "a date-time"
	case []any:
		return "an array"
	case []map[string]any:
		return "an array of tables"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}
