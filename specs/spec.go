// Package specs holds kmc's spec files (*.toml), their loader and validator, the model
// families they name, and what a check expects (Compare, CompareNeighbour, Vacuity), which
// the regression suite (app.Suite) holds each result to.
package specs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"kmc/checker"
)

// Spec is a loaded, validated spec file. Its invariants, checked by valid:
//  1. Family is the family called Model.
//  2. Properties is not empty, holds no duplicate, and names only properties of Family.
//  3. Checks is not empty; check names are identifiers and unique.
//  4. For every check, Config.Values holds every constant and fault budget of Family
//     within its range, Config.Switches names only switches of Family (all true), and
//     Config.Properties equals Properties.
//  5. Expect is ok, violated or incomplete; Property is set iff Expect is violated, and is
//     one of Properties or, with Options.Deadlock, "Deadlock".
//  6. States and Depth are >= 0 (0: not pinned).
//  7. Fairness names only action kinds of the model, with levels unfair, weak, strong.
//  8. A check's Robust entries name distinct integer constants or faults of Family with
//     a non-zero step, each neighbour value within its parameter's range; a check that
//     expects incomplete has none.
type Spec struct {
	Path       string
	Model      string
	Doc        string
	Family     Family
	Properties []string
	Options    checker.Options // from [limits] and [options]
	// View is the views its traces print unless --view says otherwise: [options] view
	// (ViewSet), else those its properties read (PropertyInfo.Views) in the family's
	// order, else the family's DefaultView. Family.DefaultView is set to it, so that what
	// reads a spec's family default reads the spec's.
	View    string
	ViewSet bool
	// SymmetrySet is true when [options] sets symmetry; otherwise the family's
	// DefaultSymmetry decides per check (Runnable).
	SymmetrySet bool
	Fairness    []FairnessSetting // from [fairness], sorted by kind
	Checks      []Check
	// Sets are the --set overrides the spec was loaded with, as given (kmc check's --fix
	// NAME is fixes+=NAME); SHA256 is the hex SHA-256 of the file's bytes. A trace records
	// both (traces.RunConfig).
	Sets      []string
	SHA256    string
	kindNames []string // the model's kinds of action, built on demand (kinds)
	// invariants are the [invariants] table's, in name order; each check's Config.Exprs
	// holds them.
	invariants []ExprProperty
}

// FairnessSetting overrides the fairness of one kind of action.
type FairnessSetting struct {
	Kind     string
	Fairness checker.Fairness
}

// Check is one [[check]] of a spec, resolved: the configuration to build and what the
// search must find.
type Check struct {
	Name     string
	Pos      Pos // of its [[check]] header
	Fixes    []string
	Without  []string // fixes of the model's release line taken out (the release just before them)
	Mutate   []string // guards turned off (Family.Guards): a mutant of the protocol
	Expect   checker.Verdict
	Property string // the property expected to be violated
	// Overridden says that a --set (or --fix) changed the model's configuration from the
	// file's: the pinned counts (States, Unreduced, Depth) are the file's configuration's,
	// and Compare does not hold a run to them.
	Overridden bool
	States     int64 // pinned distinct-state count; 0: not pinned
	// Unreduced is the pinned distinct-state count of the search without symmetry, which a
	// complete search under symmetry reports from its classes' sizes (Stats.Unreduced);
	// 0: not pinned. Only for a check that expects ok.
	Unreduced int64
	// PORStates is the pinned distinct-state count of the search under the partial-order
	// reduction (on by default in a safety check of a model that declares independence);
	// States and Depth then pin the search without it (--por=false), whose verdict, property
	// and trace length the reduced search must give too (the trace is shortened to the plain
	// search's). 0: a reduced search's count is not pinned.
	PORStates int64
	// Depth is the pinned depth of the complete search (ok, incomplete) or the length in
	// states of the counterexample (violated); 0: not pinned.
	Depth  int
	Config Config
	// Robust lists the check's robustness neighbours (robust = ["max_epoch+1"]): its
	// configuration with one constant or fault moved, which the suite also runs. A
	// neighbour of a check that expects violated(P) must be violated(P) too; one of a
	// check that expects ok must not be violated. Their counts are not pinned.
	Robust []Neighbour
	// PinVacuous is true when the check pins its vacuity (vacuous = false or true), with
	// WantVacuous the value: the suite then compares it with Spec.Vacuity of an ok result.
	PinVacuous, WantVacuous bool
}

// DeadlockProperty is the name a deadlock is reported under.
const DeadlockProperty = "Deadlock"

// Error is one problem in a spec file or a --set override, at a position.
type Error struct {
	Pos     Pos
	Key     string // the key path: "constants.brokers", "check[1].expect"
	Problem string
	Got     string // the offending value as written in TOML (cut short), or ""
	more    int    // for the last entry of a capped ErrorList: the errors left out
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	if e.Got != "" {
		b.WriteString(" (got ")
		b.WriteString(e.Got)
		b.WriteString(")")
	}
	return b.String()
}

// ErrorList is every problem found in a spec, sorted by position, at most MaxErrors of
// them and then one entry that counts the rest ("and 950 more errors"). It is the error
// Load and Parse return for bad input.
type ErrorList []*Error

// Limits on spec files, checked before they are parsed.
const (
	MaxSpecBytes = 1 << 20 // a spec file's size
	MaxNesting   = 32      // nested tables and arrays, and the parts of a dotted key
	MaxErrors    = 50      // errors reported per file; the rest are counted
	MaxWorkers   = 256     // search workers: the engine uses no more (one per fingerprint-set shard)
	maxGot       = 60      // bytes of an offending value quoted in an error
)

// Total is the number of problems found, those left out of the list included.
func (l ErrorList) Total() int {
	if n := len(l); n > 0 && l[n-1].more > 0 {
		return n - 1 + l[n-1].more
	}
	return len(l)
}

// capped keeps the first MaxErrors errors and counts the rest in a last entry, at the
// position of the first one left out.
func (l ErrorList) capped() ErrorList {
	if len(l) <= MaxErrors+1 {
		return l
	}
	rest := len(l) - MaxErrors
	out := append(ErrorList(nil), l[:MaxErrors]...)
	return append(out, &Error{Pos: l[MaxErrors].Pos, Problem: fmt.Sprintf("and %d more errors", rest), more: rest})
}

func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func (l ErrorList) sort(path string) {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if (a.File == path) != (b.File == path) {
			return a.File == path
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// sameModel reports whether a and b configure the same model: values, switches, fixes
// taken out and guards turned off.
func sameModel(a, b Config) bool {
	return maps.Equal(a.Values, b.Values) && maps.Equal(a.Switches, b.Switches) &&
		maps.Equal(a.Without, b.Without) && maps.Equal(a.Mutate, b.Mutate)
}

// onePerFlag keeps, of the errors a flag's value gives in every check (a mistyped --fix or
// --set in each check's fixes), the first: one problem, one error. Errors in the file stay
// one per key. l must be sorted.
func (l ErrorList) onePerFlag(path string) ErrorList {
	var out ErrorList
	for _, e := range l {
		if n := len(out); n > 0 && e.Pos.File != path && e.Pos == out[n-1].Pos && e.Problem == out[n-1].Problem {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Load reads and validates the spec file at path, with --set overrides applied
// ("brokers=4", "faults.crash=1", "limits.max_states=1000"). Bad input yields an ErrorList:
// so does a path that is not a regular file (a folder, a device) or a file larger than
// MaxSpecBytes. A file that cannot be opened or read is another error.
func Load(path string, sets []string) (*Spec, error) {
	return LoadCheck(path, sets, "")
}

// LoadCheck is Load for a run of the one check called check (all of them when ""): a
// --set that makes another check of the file invalid (version=4.0 where another check's
// fixes name a fix that release has already) is no error, and that check is left out of
// the spec. The file itself must still be valid, every check of it.
func LoadCheck(path string, sets []string, check string) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load spec: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("load spec: %w", err)
	}
	if !st.Mode().IsRegular() {
		what := "a device"
		switch {
		case st.IsDir():
			what = "a directory"
		case st.Mode()&os.ModeNamedPipe != 0:
			what = "a named pipe"
		case st.Mode()&os.ModeSocket != 0:
			what = "a socket"
		}
		return nil, ErrorList{{Pos: Pos{path, 1, 1}, Problem: "not a regular file (" + what + ")"}}
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("load spec: %w", err)
	}
	return ParseCheck(path, src, sets, check)
}

// Parse validates the spec text src, read from path, with --set overrides applied.
func Parse(path string, src []byte, sets []string) (*Spec, error) {
	return ParseCheck(path, src, sets, "")
}

// ParseCheck is Parse for a run of the one check called check, as LoadCheck is Load.
func ParseCheck(path string, src []byte, sets []string, check string) (*Spec, error) {
	if len(src) > MaxSpecBytes {
		return nil, ErrorList{{Pos: Pos{path, 1, 1}, Problem: "larger than 1 MiB: spec files are small"}}
	}
	if e := checkNesting(path, string(src)); e != nil {
		return nil, ErrorList{e}
	}
	v := &validator{path: path, lines: strings.Split(string(src), "\n"), pos: scanPositions(path, string(src))}
	var base *Spec // the file without the overrides, when they apply
	if len(sets) > 0 {
		base, _ = Parse(path, src, nil)
		if base != nil && check != "" {
			if _, ok := base.CheckByName(check); ok {
				v.only = check
			}
		}
	}
	var raw map[string]any
	if _, err := toml.Decode(string(src), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// The parser's column counts bytes, and from the line before when the error is
			// at a line's first byte: the position comes from its byte offset instead.
			p := offsetPos(path, string(src), pe.Position.Start)
			v.errs = append(v.errs, &Error{Pos: p, Problem: "toml: " + pe.Message})
		} else {
			v.errs = append(v.errs, &Error{Pos: Pos{path, 1, 1}, Problem: "toml: " + err.Error()})
		}
		return nil, v.errs
	}
	s := v.spec(raw, sets)
	if len(v.errs) == 0 && base != nil {
		for i := range s.Checks {
			if b, ok := base.CheckByName(s.Checks[i].Name); ok && !sameModel(s.Checks[i].Config, b.Config) {
				s.Checks[i].Overridden = true
			}
		}
	}
	if len(v.errs) == 0 {
		for _, x := range s.invariants {
			if err := s.checkExpr(x); err != nil {
				v.errs = append(v.errs, err.(ErrorList)...)
			}
		}
	}
	if len(v.errs) > 0 {
		v.errs.sort(path)
		v.errs = v.errs.onePerFlag(path)
		return nil, v.errs.capped()
	}
	if err := s.valid(); err != nil {
		return nil, fmt.Errorf("specs: internal: %s: %w", path, err)
	}
	s.Sets = slices.Clone(sets)
	sum := sha256.Sum256(src)
	s.SHA256 = hex.EncodeToString(sum[:])
	return s, nil
}

type validator struct {
	// only, when not "", is the one check a run needs: the errors a --set causes in the
	// file's other checks are dropped with those checks (dropOthers).
	only  string
	path  string
	lines []string // of the source, for positions inside arrays
	pos   map[string]keyPos
	errs  ErrorList
	// paramSet is true when a --set override replaced a constant or fault: a robustness
	// neighbour that it pushes out of range is then dropped rather than reported.
	paramSet bool
	// Where each constant and fault is set, by name: the path of its key in [constants] or
	// [faults] (or a --set), and per check in the check's own tables. For cross-field errors.
	baseSet map[string]string
	setIn   []map[string]string
}

// at is the position of the key at path, or of the nearest enclosing key that has one.
func (v *validator) at(path string, value bool) Pos {
	for p := path; ; {
		if kp, ok := v.pos[p]; ok {
			if value {
				return kp.val
			}
			return kp.key
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			return Pos{v.path, 1, 1}
		}
		p = p[:i]
		value = false
	}
}

// errKey reports a problem with a key itself (unknown, duplicate, missing).
func (v *validator) errKey(path, problem string, got any) {
	v.add(v.at(path, false), path, problem, got)
}

// errVal reports a problem with the value of a key.
func (v *validator) errVal(path, problem string, got any) {
	v.add(v.at(path, true), path, problem, got)
}

func (v *validator) add(p Pos, path, problem string, got any) {
	e := &Error{Pos: p, Key: path, Problem: problem}
	if got != nil {
		e.Got = shorten(formatValue(got))
	}
	v.errs = append(v.errs, e)
}

var topKeys = []string{"model", "doc", "properties", "invariants", "constants", "faults", "limits", "options", "fairness", "check"}
var checkKeys = []string{"name", "fixes", "without", "mutate", "expect", "property", "states", "unreduced", "por_states", "depth", "vacuous", "constants", "faults", "robust"}
var limitKeys = []string{"max_states", "max_depth", "memory", "time"}
var optionKeys = []string{"deadlock", "symmetry", "view", "workers"}

// unknown reports every key of table not in known, in sorted order.
func (v *validator) unknown(prefix string, table map[string]any, known []string) {
	for _, k := range sortedKeys(table) {
		if !contains(known, k) {
			v.errKey(joinPath(prefix, k), "unknown key; want one of "+strings.Join(known, ", ")+DidYouMean(k, known), nil)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (v *validator) table(raw map[string]any, key string) map[string]any {
	x, ok := raw[key]
	if !ok {
		return nil
	}
	t, ok := x.(map[string]any)
	if !ok {
		v.errVal(key, "must be a table", x)
		return nil
	}
	return t
}

func (v *validator) str(raw map[string]any, prefix, key string, required bool) (string, bool) {
	path := joinPath(prefix, key)
	x, ok := raw[key]
	if !ok {
		if required {
			v.errKey(prefix, "missing required key "+strconv.Quote(key), nil)
		}
		return "", false
	}
	s, ok := x.(string)
	if !ok {
		v.errVal(path, "must be a string, not "+typeName(x), x)
		return "", false
	}
	return s, true
}

func (v *validator) strList(raw map[string]any, prefix, key string) ([]string, bool) {
	path := joinPath(prefix, key)
	x, ok := raw[key]
	if !ok {
		return nil, false
	}
	arr, ok := x.([]any)
	if !ok {
		v.errVal(path, "must be an array of strings, not "+typeName(x), x)
		return nil, false
	}
	var out []string
	seen := map[string]bool{}
	good := true
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			v.errVal(path, "must be an array of strings", e)
			return nil, false
		}
		if seen[s] {
			v.errVal(path, "duplicate name "+strconv.Quote(s), nil)
			good = false
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, good
}

func (v *validator) integer(raw map[string]any, prefix, key string, lo, hi int64) (int64, bool) {
	path := joinPath(prefix, key)
	x, ok := raw[key]
	if !ok {
		return 0, false
	}
	n, ok := x.(int64)
	if !ok {
		v.errVal(path, "must be an integer, not "+typeName(x), x)
		return 0, false
	}
	if n < lo || n > hi {
		if hi == maxInt {
			v.errVal(path, fmt.Sprintf("must be at least %d", lo), x)
		} else {
			v.errVal(path, fmt.Sprintf("must be %d..%d", lo, hi), x)
		}
		return 0, false
	}
	return n, true
}

const maxInt = int64(^uint(0) >> 1)

// shorten cuts a value quoted in an error to about maxGot bytes, at a rune boundary.
func shorten(s string) string {
	if len(s) <= maxGot {
		return s
	}
	i := maxGot
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func (v *validator) boolean(raw map[string]any, prefix, key string) (bool, bool) {
	x, ok := raw[key]
	if !ok {
		return false, false
	}
	b, ok := x.(bool)
	if !ok {
		v.errVal(joinPath(prefix, key), "must be true or false, not "+typeName(x), x)
		return false, false
	}
	return b, true
}

// params validates a [constants] or [faults] table against the family's params and writes
// the values into vals.
func (v *validator) params(table map[string]any, prefix string, params []Param, vals map[string]int) {
	var known []string
	for _, p := range params {
		known = append(known, p.Name)
	}
	for _, k := range sortedKeys(table) {
		path := joinPath(prefix, k)
		p, ok := findParam(params, k)
		if !ok {
			if len(known) == 0 {
				v.errKey(path, "unknown key; the model has none", nil)
			} else {
				v.errKey(path, "unknown key; want one of "+strings.Join(known, ", ")+DidYouMean(k, known), nil)
			}
			continue
		}
		x := table[k]
		switch p.Kind {
		case Int:
			if n, ok := v.integer(table, prefix, k, int64(p.Min), int64(p.Max)); ok {
				vals[k] = int(n)
			}
		case Bool:
			if b, ok := v.boolean(table, prefix, k); ok {
				vals[k] = 0
				if b {
					vals[k] = 1
				}
			}
		case Enum:
			s, ok := x.(string)
			if !ok {
				v.errVal(path, "must be a string, one of "+quoteAll(p.Enum), x)
				continue
			}
			i := index(p.Enum, s)
			if i < 0 {
				v.errVal(path, "must be one of "+quoteAll(p.Enum), x)
				continue
			}
			vals[k] = i
		}
	}
}

func findParam(params []Param, name string) (Param, bool) {
	for _, p := range params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func quoteAll(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return true
}

// spec validates the decoded document and resolves it. Problems go to v.errs.
func (v *validator) spec(raw map[string]any, sets []string) *Spec {
	s := &Spec{Path: v.path}
	v.unknown("", raw, topKeys)

	model, _ := v.str(raw, "", "model", true)
	fam, famOK := FamilyByName(model)
	if _, isStr := raw["model"].(string); isStr && !famOK { // model = "" too
		var names []string
		for _, f := range Families() {
			names = append(names, f.Name)
		}
		v.errVal("model", "unknown model; want one of "+quoteAll(names), model)
	}
	s.Model, s.Family = model, fam
	if famOK {
		v.applySets(raw, fam, sets)
	}
	s.Doc, _ = v.str(raw, "", "doc", false)

	// properties
	props, ok := v.strList(raw, "", "properties")
	if _, has := raw["properties"]; !has {
		v.errKey("", `missing required key "properties"`, nil)
	} else if ok && len(props) == 0 {
		v.errVal("properties", "must name at least one property", raw["properties"])
	}
	if famOK {
		var known []string
		for _, p := range fam.Properties {
			known = append(known, p.Name)
		}
		for _, p := range props {
			if !contains(known, p) {
				v.errVal("properties", "unknown property "+strconv.Quote(p)+"; want one of "+strings.Join(known, ", ")+DidYouMean(p, known), nil)
			}
		}
	}
	s.Properties = props

	// invariants written as expressions (exprs.go), compiled once the checks are resolved
	if inv := v.table(raw, "invariants"); inv != nil {
		names := make([]string, 0, len(inv))
		for k := range inv {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			path := "invariants." + k
			switch {
			case !isIdent(k):
				v.errKey(path, "an invariant's name must be an identifier (letters, digits, _)", nil)
			case contains(props, k) || fam.hasProperty(k):
				v.errKey(path, "an invariant's name must not be a property's: "+strconv.Quote(k), nil)
			}
			if src, ok := v.str(inv, "invariants", k, true); ok {
				s.invariants = append(s.invariants, ExprProperty{Name: k, Src: src, Pos: v.at(path, true), Field: path})
			}
		}
	}

	// constants and faults shared by every check
	base := map[string]int{}
	if famOK {
		for _, p := range fam.Constants {
			base[p.Name] = p.Default
		}
		for _, p := range fam.Faults {
			base[p.Name] = p.Default
		}
	}
	consts, faults := v.table(raw, "constants"), v.table(raw, "faults")
	if famOK {
		v.params(consts, "constants", fam.Constants, base)
		v.params(faults, "faults", fam.Faults, base)
	}
	v.baseSet = explicit("", consts, faults)

	// limits and options
	if lim := v.table(raw, "limits"); lim != nil {
		v.unknown("limits", lim, limitKeys)
		if n, ok := v.integer(lim, "limits", "max_states", 0, maxInt); ok {
			s.Options.MaxStates = n
		}
		if n, ok := v.integer(lim, "limits", "max_depth", 0, maxInt); ok {
			s.Options.MaxDepth = int(n)
		}
		if x, ok := lim["memory"]; ok {
			const notPositive = "must be positive; leave it out for the default"
			switch m := x.(type) {
			case int64:
				if m <= 0 {
					v.errVal("limits.memory", notPositive, x)
				}
				s.Options.MemoryBytes = max(m, 0)
			case string:
				n, err := ParseSize(m)
				if err != nil {
					v.errVal("limits.memory", err.Error(), x)
				} else if n <= 0 {
					v.errVal("limits.memory", notPositive, x)
				}
				s.Options.MemoryBytes = n
			default:
				v.errVal("limits.memory", "must be a size such as \"4GiB\", not "+typeName(x), x)
			}
		}
		if x, ok := lim["time"]; ok {
			if t, isStr := x.(string); isStr {
				d, err := ParseDuration(t)
				if err != nil {
					v.errVal("limits.time", err.Error(), x)
				}
				s.Options.Time = d
			} else {
				v.errVal("limits.time", "must be a duration such as \"10m\", not "+typeName(x), x)
			}
		}
	}
	if opt := v.table(raw, "options"); opt != nil {
		v.unknown("options", opt, optionKeys)
		s.Options.Deadlock, _ = v.boolean(opt, "options", "deadlock")
		if sym, ok := v.boolean(opt, "options", "symmetry"); ok {
			if sym && famOK && !fam.Symmetry {
				v.errVal("options.symmetry", "model "+fam.Name+" has no symmetry reduction"+Because(fam.SymmetryNote), opt["symmetry"])
			} else {
				s.Options.Symmetry, s.SymmetrySet = sym, true
			}
		}
		if n, ok := v.integer(opt, "options", "workers", 0, MaxWorkers); ok {
			s.Options.Workers = int(n)
		}
		if view, ok := v.str(opt, "options", "view", false); ok && famOK {
			if problem := badView(view, fam.Views); problem != "" {
				v.errVal("options.view", problem, opt["view"])
			} else {
				s.View, s.ViewSet = view, true
			}
		}
	}
	if fair := v.table(raw, "fairness"); fair != nil {
		for _, k := range sortedKeys(fair) {
			x := fair[k]
			str, _ := x.(string)
			f, ok := map[string]checker.Fairness{"unfair": checker.Unfair, "weak": checker.Weak, "strong": checker.Strong}[str]
			if !ok {
				v.errVal("fairness."+k, `must be "unfair", "weak" or "strong"`, x)
				continue
			}
			s.Fairness = append(s.Fairness, FairnessSetting{Kind: k, Fairness: f})
		}
	}

	v.checks(s, raw, base)
	v.crossCheck(s)
	v.dropOthers(s)
	if famOK {
		s.resolveView()
	}
	if len(v.errs) == 0 {
		v.buildNeighbours(s)
	}

	if len(v.errs) == 0 && len(s.Fairness) > 0 {
		// Action kinds are known only to the model: build the first check to learn them.
		r, err := s.Family.Build(s.Checks[0].Config)
		if err != nil {
			v.errKey("check[0]", "cannot build the model: "+err.Error(), nil)
		} else {
			kinds := r.ActionKinds()
			for _, f := range s.Fairness {
				if !contains(kinds, f.Kind) {
					v.errKey("fairness."+f.Kind, "unknown action kind; want one of "+strings.Join(kinds, ", "), nil)
				}
			}
		}
	}
	return s
}

func (v *validator) checks(s *Spec, raw map[string]any, base map[string]int) {
	x, ok := raw["check"]
	if !ok {
		v.errKey("", "missing [[check]]: a spec needs at least one check", nil)
		return
	}
	list, ok := x.([]map[string]any)
	if arr, isArr := x.([]any); isArr { // an inline array of tables: check = [{...}]
		ok = true
		for _, e := range arr {
			t, isTable := e.(map[string]any)
			ok = ok && isTable
			list = append(list, t)
		}
	}
	if !ok || len(list) == 0 {
		v.errVal("check", "must be an array of tables ([[check]])", x)
		return
	}
	first := map[string]string{} // name -> path of its first use
	fam := s.Family
	famOK := fam.Name != ""
	for i, c := range list {
		prefix := "check[" + strconv.Itoa(i) + "]"
		v.unknown(prefix, c, checkKeys)
		ck := Check{Pos: v.at(prefix, false)}
		if name, ok := v.str(c, prefix, "name", true); ok {
			switch {
			case !isIdent(name):
				v.errVal(prefix+".name", "must be an identifier (letters, digits, _ and -)", name)
			case first[name] != "":
				v.errVal(prefix+".name", "duplicate check name; first at "+v.at(first[name], true).String(), name)
			default:
				first[name] = prefix + ".name"
			}
			ck.Name = name
		}
		fixes, _ := v.strList(c, prefix, "fixes")
		if famOK {
			var known []string
			for _, sw := range fam.Switches {
				known = append(known, sw.Name)
			}
			for _, f := range fixes {
				if !contains(known, f) {
					want := "the model has none"
					if len(known) > 0 {
						want = "want one of " + strings.Join(known, ", ")
					}
					v.errVal(prefix+".fixes", "unknown switch "+strconv.Quote(f)+"; "+want+DidYouMean(f, known), nil)
				}
			}
		}
		ck.Fixes = fixes
		without, _ := v.strList(c, prefix, "without")
		if famOK {
			for _, f := range without {
				if !fam.hasSwitch(f) {
					var known []string
					for _, sw := range fam.Switches {
						known = append(known, sw.Name)
					}
					v.errVal(prefix+".without", "unknown switch "+strconv.Quote(f)+DidYouMean(f, known), nil)
				} else if contains(fixes, f) {
					v.errVal(prefix+".without", "switch "+strconv.Quote(f)+" is also in fixes", nil)
				}
			}
		}
		ck.Without = without
		mutate, _ := v.strList(c, prefix, "mutate")
		if famOK {
			for _, g := range mutate { // strList reports a name given twice
				if !fam.hasGuard(g) {
					want := "the model has none"
					if len(fam.Guards) > 0 {
						want = "want one of " + strings.Join(fam.GuardNames(), ", ")
					}
					v.errVal(prefix+".mutate", "unknown guard "+strconv.Quote(g)+"; "+want+DidYouMean(g, fam.GuardNames()), nil)
				}
			}
		}
		ck.Mutate = mutate
		// Without expect the check is exploratory: kmc check reports its verdict (exit code as
		// always) and compares nothing, so it pins nothing.
		if e, ok := v.str(c, prefix, "expect", false); ok {
			switch checker.Verdict(e) {
			case checker.OK, checker.Violated, checker.Incomplete:
				ck.Expect = checker.Verdict(e)
			default:
				v.errVal(prefix+".expect", `must be "ok", "violated" or "incomplete"`, e)
			}
		}
		prop, hasProp := v.str(c, prefix, "property", false)
		switch {
		case ck.Expect == checker.Violated && !hasProp:
			if _, present := c["property"]; !present {
				v.errKey(prefix, `missing key "property": required when expect = "violated"`, nil)
			}
		case hasProp && ck.Expect != checker.Violated && (ck.Expect != "" || !hasKey(c, "expect")):
			v.errVal(prefix+".property", `only allowed when expect = "violated"`, prop)
		case hasProp && !contains(s.Properties, prop) && !(prop == DeadlockProperty && s.Options.Deadlock):
			want := "want one of the spec's properties: " + strings.Join(s.Properties, ", ")
			if s.Options.Deadlock {
				want += ", " + DeadlockProperty
			}
			v.errVal(prefix+".property", "not checked by this spec; "+want, prop)
		}
		ck.Property = prop
		if n, ok := v.integer(c, prefix, "states", 1, maxInt); ok {
			ck.States = n
		}
		if n, ok := v.integer(c, prefix, "unreduced", 1, maxInt); ok {
			if ck.Expect != "" && ck.Expect != checker.OK {
				v.errVal(prefix+".unreduced", `only allowed when expect = "ok"`, n)
			}
			ck.Unreduced = n
		}
		if n, ok := v.integer(c, prefix, "por_states", 1, maxInt); ok {
			ck.PORStates = n
		}
		if n, ok := v.integer(c, prefix, "depth", 1, maxInt); ok {
			ck.Depth = int(n)
		}
		if b, ok := v.boolean(c, prefix, "vacuous"); ok {
			if ck.Expect != "" && ck.Expect != checker.OK {
				v.errVal(prefix+".vacuous", `only allowed when expect = "ok"`, b)
			}
			ck.PinVacuous, ck.WantVacuous = true, b
		}
		vals := map[string]int{}
		for k, n := range base {
			vals[k] = n
		}
		consts, faults := v.subTable(c, prefix, "constants"), v.subTable(c, prefix, "faults")
		if famOK {
			v.params(consts, prefix+".constants", fam.Constants, vals)
			v.params(faults, prefix+".faults", fam.Faults, vals)
		}
		v.setIn = append(v.setIn, explicit(prefix, consts, faults))
		sw := map[string]bool{}
		for _, f := range fixes {
			sw[f] = true
		}
		var wo map[string]bool
		for _, f := range without {
			if wo == nil {
				wo = map[string]bool{}
			}
			wo[f] = true
		}
		var mu map[string]bool
		for _, g := range mutate {
			if mu == nil {
				mu = map[string]bool{}
			}
			mu[g] = true
		}
		ck.Config = Config{Values: vals, Switches: sw, Without: wo, Mutate: mu, Properties: append([]string(nil), s.Properties...),
			Exprs: append([]ExprProperty(nil), s.invariants...)}
		if famOK {
			ck.Robust = v.robust(c, prefix, fam, &ck)
		}
		if _, has := c["expect"]; !has {
			for _, k := range []string{"states", "unreduced", "por_states", "depth", "vacuous", "robust"} {
				if x, pinned := c[k]; pinned {
					v.errVal(prefix+"."+k, `only with expect: a check without expect is exploratory and compares nothing`, x)
				}
			}
		}
		s.Checks = append(s.Checks, ck)
	}
}

// dropOthers, for a run of the one check v.only, drops the errors in the other checks
// (keys check[i] and check[i].*) and, when there were any, those checks: the file without
// the overrides is valid (ParseCheck sets only then), so the overrides caused them.
func (v *validator) dropOthers(s *Spec) {
	if v.only == "" || len(v.errs) == 0 {
		return
	}
	var kept []Check
	drop := map[string]bool{}
	for i, c := range s.Checks {
		if c.Name == v.only {
			kept = append(kept, c)
			continue
		}
		drop["check["+strconv.Itoa(i)+"]"] = true
	}
	errs := v.errs[:0]
	for _, e := range v.errs {
		key, _, _ := strings.Cut(e.Key, ".")
		if !drop[key] {
			errs = append(errs, e)
		}
	}
	v.errs = errs
	s.Checks = kept
}

func (v *validator) subTable(c map[string]any, prefix, key string) map[string]any {
	x, ok := c[key]
	if !ok {
		return nil
	}
	t, ok := x.(map[string]any)
	if !ok {
		v.errVal(prefix+"."+key, "must be a table", x)
		return nil
	}
	return t
}

// valid checks the invariants listed on Spec. A failure is a bug in the loader.
func (s *Spec) valid() error {
	if f, ok := FamilyByName(s.Model); !ok || f.Name != s.Family.Name {
		return fmt.Errorf("family %q does not match model %q", s.Family.Name, s.Model)
	}
	if len(s.Properties) == 0 {
		return errors.New("no properties")
	}
	for i, p := range s.Properties {
		if index(s.Properties, p) != i {
			return fmt.Errorf("duplicate property %s", p)
		}
		found := false
		for _, q := range s.Family.Properties {
			found = found || q.Name == p
		}
		if !found {
			return fmt.Errorf("unknown property %s", p)
		}
	}
	if len(s.Checks) == 0 {
		return errors.New("no checks")
	}
	for i, c := range s.Checks {
		if !isIdent(c.Name) {
			return fmt.Errorf("check %d: bad name %q", i, c.Name)
		}
		for j := range i {
			if s.Checks[j].Name == c.Name {
				return fmt.Errorf("duplicate check %s", c.Name)
			}
		}
		if err := s.Family.validConfig(c.Config); err != nil {
			return fmt.Errorf("check %s: %w", c.Name, err)
		}
		if strings.Join(c.Config.Properties, ",") != strings.Join(s.Properties, ",") {
			return fmt.Errorf("check %s: properties differ from the spec's", c.Name)
		}
		switch c.Expect {
		case checker.OK, checker.Incomplete, "":
			if c.Property != "" {
				return fmt.Errorf("check %s: property with expect %s", c.Name, c.Expect)
			}
		case checker.Violated:
			if !contains(s.Properties, c.Property) && !(c.Property == DeadlockProperty && s.Options.Deadlock) {
				return fmt.Errorf("check %s: expected property %q not checked", c.Name, c.Property)
			}
		default:
			return fmt.Errorf("check %s: bad expect %q", c.Name, c.Expect)
		}
		if c.States < 0 || c.Depth < 0 {
			return fmt.Errorf("check %s: negative pin", c.Name)
		}
		if err := s.Family.validRobust(&c); err != nil {
			return fmt.Errorf("check %s: %w", c.Name, err)
		}
	}
	return nil
}

// validConfig checks that cfg holds every parameter of f in range and only f's switches.
func (f Family) validConfig(cfg Config) error {
	params := append(append([]Param(nil), f.Constants...), f.Faults...)
	if len(cfg.Values) != len(params) {
		return fmt.Errorf("%d values for %d parameters", len(cfg.Values), len(params))
	}
	for _, p := range params {
		n, ok := cfg.Values[p.Name]
		if !ok {
			return fmt.Errorf("no value for %s", p.Name)
		}
		lo, hi := p.Min, p.Max
		switch p.Kind {
		case Bool:
			lo, hi = 0, 1
		case Enum:
			lo, hi = 0, len(p.Enum)-1
		}
		if n < lo || n > hi {
			return fmt.Errorf("%s = %d outside %d..%d", p.Name, n, lo, hi)
		}
	}
	for name := range cfg.Without {
		if !f.hasSwitch(name) {
			return fmt.Errorf("bad switch %s in without", name)
		}
	}
	for name, off := range cfg.Mutate {
		if !f.hasGuard(name) || !off {
			return fmt.Errorf("bad guard %s in mutate", name)
		}
	}
	for name, on := range cfg.Switches {
		found := false
		for _, sw := range f.Switches {
			found = found || sw.Name == name
		}
		if !found || !on {
			return fmt.Errorf("bad switch %s", name)
		}
	}
	return nil
}

// Runnable builds the model of check c and returns it with the search options of the spec
// (limits, options and fairness) for it.
func (s *Spec) Runnable(c *Check) (checker.Runnable, checker.Options, error) {
	return s.runnable(c.Config, "check "+c.Name)
}

// NeighbourRunnable is Runnable for the robustness neighbour n of check c.
func (s *Spec) NeighbourRunnable(c *Check, n Neighbour) (checker.Runnable, checker.Options, error) {
	return s.runnable(c.NeighbourConfig(n), "check "+c.Name+": robust "+n.String())
}

func (s *Spec) runnable(cfg Config, what string) (checker.Runnable, checker.Options, error) {
	r, err := s.Family.Build(cfg)
	if err != nil {
		return nil, checker.Options{}, fmt.Errorf("%s: %s: build model: %w", s.Path, what, err)
	}
	opts := s.Options
	if !s.SymmetrySet && s.Family.DefaultSymmetry != nil {
		opts.Symmetry = s.Family.DefaultSymmetry(cfg)
	}
	// The partial-order reduction is on by default in a safety check (the engine uses it
	// when the model declares independence), unless the family asks for it to be requested
	// (PORByRequest); a liveness check runs without it.
	_, live := r.Fairness(opts)
	opts.POR = !live && !s.Family.PORByRequest
	if len(s.Fairness) > 0 {
		kinds := r.ActionKinds()
		over := make([]checker.Fairness, len(kinds))
		for i := range over {
			over[i] = -1
		}
		for _, f := range s.Fairness {
			if i := index(kinds, f.Kind); i >= 0 {
				over[i] = f.Fairness
			}
		}
		opts.FairnessOverride = over
	}
	return r, opts, nil
}

// CheckByName returns the check called name.
func (s *Spec) CheckByName(name string) (*Check, bool) {
	for i := range s.Checks {
		if s.Checks[i].Name == name {
			return &s.Checks[i], true
		}
	}
	return nil, false
}

// PropertyKind is the kind of the named property of the spec's family ("Deadlock" counts
// as a safety property: an invariant).
func (s *Spec) PropertyKind(name string) checker.Kind {
	for _, p := range s.Family.Properties {
		if p.Name == name {
			return p.Kind
		}
	}
	return checker.Invariant
}

// hasKey reports whether table raw has key.
func hasKey(raw map[string]any, key string) bool {
	_, ok := raw[key]
	return ok
}
