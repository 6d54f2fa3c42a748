package specs

import (
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// SetFile is the file name errors in --set overrides are reported under; the line is the
// ordinal of the --set argument (1 for the first) and the column is within the argument.
const SetFile = "--set"

// applySets applies --set overrides ("key=value") to the decoded spec, before validation,
// so that they are validated as if written in the file. A key is a constant or fault of
// the family by bare name ("brokers"), or a path: "constants.brokers", "faults.crash",
// "limits.max_states", "options.workers", "fairness.FollowerFetch". Constants and faults
// replace the per-check values too. "fixes=A,B" replaces every check's fix switches, and
// "fixes+=A" adds one to each (kmc check --fix A). A value is read as TOML ("3", "true", "\"x\"") or,
// failing that, as a bare string ("4GiB", "diverging-epoch").
func (v *validator) applySets(raw map[string]any, fam Family, sets []string) {
	for i, arg := range sets {
		line := i + 1
		if nl := strings.IndexAny(arg, "\r\n"); nl >= 0 {
			// TOML would read what follows as more keys, silently.
			key := ""
			if eq := strings.IndexByte(arg[:nl], '='); eq > 0 {
				key = strings.TrimSpace(arg[:eq])
			}
			v.add(Pos{SetFile, line, runeCol(arg, nl)}, key, "a value must be one line", nil)
			continue
		}
		eq := strings.IndexByte(arg, '=')
		if eq <= 0 {
			v.add(Pos{SetFile, line, 1}, "", "want key=value", arg)
			continue
		}
		key, text := strings.TrimSpace(arg[:eq]), strings.TrimSpace(arg[eq+1:])
		kp := Pos{SetFile, line, 1}
		vp := Pos{SetFile, line, runeCol(arg, eq+1)}
		if key == "fixes" || key == "fixes+" {
			setFixes(raw, key == "fixes+", text)
			checks, _ := raw["check"].([]map[string]any)
			for i := range checks {
				v.pos["check["+strconv.Itoa(i)+"].fixes"] = keyPos{key: kp, val: vp}
			}
			continue
		}
		section, name, ok := strings.Cut(key, ".")
		if !ok {
			name = key
			switch {
			case hasParam(fam.Constants, key):
				section = "constants"
			case hasParam(fam.Faults, key):
				section = "faults"
			default:
				v.add(kp, key, "unknown key; want a constant or fault of "+fam.Name+
					" ("+strings.Join(paramNames(fam), ", ")+") or a path such as limits.max_states"+DidYouMean(key, paramNames(fam)), nil)
				continue
			}
		}
		switch section {
		case "constants", "faults", "limits", "options", "fairness":
		default:
			v.add(kp, key, "unknown key; want constants.*, faults.*, limits.*, options.* or fairness.*", nil)
			continue
		}
		if name == "" || strings.Contains(name, ".") {
			v.add(kp, key, "unknown key", nil)
			continue
		}
		val := setValue(text)
		if p, ok := findParam(append(append([]Param(nil), fam.Constants...), fam.Faults...), name); ok &&
			p.Kind == Enum && (section == "constants" || section == "faults") {
			if _, isStr := val.(string); !isStr && index(p.Enum, text) >= 0 {
				val = text // version=4.1 names the enum value "4.1", not a number
			}
		}
		path := section + "." + name
		if !setIn(raw, section, name, val) {
			continue // the section is not a table: reported by validation
		}
		v.pos[path] = keyPos{key: kp, val: vp}
		if section != "constants" && section != "faults" {
			continue
		}
		v.paramSet = true
		checks, _ := raw["check"].([]map[string]any)
		for _, c := range checks {
			t, ok := c[section].(map[string]any)
			if !ok {
				continue
			}
			delete(t, name) // the check's own value gives way to the override
		}
	}
}

// setFixes gives every check of raw the fix switches listed in text (comma-separated; "" or
// "none" for none): in place of its own with fixes=..., after them with fixes+=... (kmc check
// --fix NAME), each name once.
func setFixes(raw map[string]any, add bool, text string) {
	var names []string
	for _, n := range strings.Split(text, ",") {
		if n = strings.TrimSpace(n); n != "" && n != "none" {
			names = append(names, n)
		}
	}
	checks, _ := raw["check"].([]map[string]any)
	for _, c := range checks {
		var list []any
		if old, ok := c["fixes"].([]any); ok && add {
			list = append(list, old...)
		}
	next:
		for _, n := range names {
			for _, x := range list {
				if x == n {
					continue next
				}
			}
			list = append(list, n)
		}
		c["fixes"] = list
	}
}

// setIn sets raw[section][name] = val, creating the table when absent; it reports false
// when raw[section] exists and is not a table.
func setIn(raw map[string]any, section, name string, val any) bool {
	x, ok := raw[section]
	if !ok {
		x = map[string]any{}
		raw[section] = x
	}
	t, ok := x.(map[string]any)
	if !ok {
		return false
	}
	t[name] = val
	return true
}

// setValue reads the value of a --set as TOML, or as a bare string when it is not TOML.
func setValue(text string) any {
	var m map[string]any
	if _, err := toml.Decode("v = "+text, &m); err == nil {
		if x, ok := m["v"]; ok {
			return x
		}
	}
	return text
}

func hasParam(ps []Param, name string) bool {
	_, ok := findParam(ps, name)
	return ok
}

func paramNames(f Family) []string {
	var names []string
	for _, p := range f.Constants {
		names = append(names, p.Name)
	}
	for _, p := range f.Faults {
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		names = []string{"none"}
	}
	return names
}
