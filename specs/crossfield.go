package specs

import (
	"sort"
	"strconv"
	"strings"
)

// Rules of a configuration that tie fields together (min_isr <= brokers; the control
// plane's fault budgets) belong to the model. The loader checks them for every check with
// the family's Validate (or Build), so that a contradiction is a spec error at load,
// positioned at a key that sets one of the fields the message names, before any check runs.

// explicit maps each key of a [constants] and a [faults] table to its path under prefix.
func explicit(prefix string, consts, faults map[string]any) map[string]string {
	m := map[string]string{}
	for _, t := range []struct {
		name  string
		table map[string]any
	}{{"constants", consts}, {"faults", faults}} {
		for k := range t.table {
			m[k] = joinPath(prefix, t.name+"."+k)
		}
	}
	return m
}

// crossCheck validates each check's configuration whose fields are each valid. An error
// at a key shared by several checks (top level, --set) is reported once, naming them.
func (v *validator) crossCheck(s *Spec) {
	if s.Family.Name == "" || len(v.setIn) != len(s.Checks) {
		return
	}
	for _, p := range s.Properties {
		if !s.Family.hasProperty(p) {
			return // Build would fail on the property, which is reported already
		}
	}
	type key struct{ path, msg string }
	var order []key
	checks := map[key][]string{}
	at := map[key]Pos{}
	for i := range s.Checks {
		c := &s.Checks[i]
		if s.Family.validConfig(c.Config) != nil {
			continue // a field is missing or out of range: reported already
		}
		for _, e := range splitErrors(s.Family.validate(c.Config)) {
			msg := trimPrefixes(e.Error(), s.Family.Name)
			path, pos := v.configKey(s.Family, i, msg)
			k := key{path, msg}
			if _, seen := checks[k]; !seen {
				order = append(order, k)
				at[k] = pos
			}
			checks[k] = append(checks[k], c.Name)
		}
	}
	for _, k := range order {
		problem := k.msg
		if names := checks[k]; !strings.HasPrefix(k.path, "check[") {
			if len(names) == 1 {
				problem += " (check " + names[0] + ")"
			} else {
				problem += " (checks " + strings.Join(names, ", ") + ")"
			}
		}
		v.errs = append(v.errs, &Error{Pos: at[k], Key: k.path, Problem: problem})
	}
}

func (f Family) hasProperty(name string) bool {
	for _, p := range f.Properties {
		if p.Name == name {
			return true
		}
	}
	return false
}

// splitErrors lists the errors joined in err (errors.Join), or err alone.
func splitErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, splitErrors(e)...)
		}
		return out
	}
	return []error{err}
}

// trimPrefixes drops the layers' prefixes ("kafka: ", "model: ") from a model's message.
func trimPrefixes(msg, family string) string {
	for {
		trimmed := strings.TrimPrefix(strings.TrimPrefix(msg, family+": "), "model: ")
		if trimmed == msg {
			return msg
		}
		msg = trimmed
	}
}

// configKey is where to report a problem of check i's configuration: the first field the
// message names (as "min_isr", or "max records") that the spec sets, in the check's own
// tables, else at the top level or by --set; when it sets none of them, the check's header.
func (v *validator) configKey(f Family, i int, msg string) (string, Pos) {
	type mention struct {
		at   int
		name string
	}
	for _, key := range []string{"fixes", "without"} {
		if strings.HasPrefix(msg, key+":") {
			path := "check[" + strconv.Itoa(i) + "]." + key
			if _, ok := v.pos[path]; ok {
				return path, v.at(path, true)
			}
		}
	}
	var named []mention
	for _, ps := range [][]Param{f.Constants, f.Faults} {
		for _, p := range ps {
			at := wordIndex(msg, p.Name)
			if spaced := strings.ReplaceAll(p.Name, "_", " "); at < 0 && spaced != p.Name {
				at = wordIndex(msg, spaced)
			}
			if at >= 0 {
				named = append(named, mention{at, p.Name})
			}
		}
	}
	sort.SliceStable(named, func(a, b int) bool { return named[a].at < named[b].at })
	for _, m := range named {
		if i < len(v.setIn) {
			if path, ok := v.setIn[i][m.name]; ok {
				return path, v.at(path, true)
			}
		}
		if path, ok := v.baseSet[m.name]; ok {
			return path, v.at(path, true)
		}
	}
	path := "check[" + strconv.Itoa(i) + "]"
	return path, v.at(path, false)
}

// wordIndex is the index of word in s where it stands alone (not inside a longer name of
// letters, digits and underscores), or -1.
func wordIndex(s, word string) int {
	for from := 0; ; {
		k := strings.Index(s[from:], word)
		if k < 0 {
			return -1
		}
		at := from + k
		end := at + len(word)
		if (at == 0 || !isNameByte(s[at-1])) && (end == len(s) || !isNameByte(s[end])) {
			return at
		}
		from = at + 1
	}
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
