package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"kmc/checker"
	"kmc/fsx"
)

// ITF metadata keys. The standard ones come from ADR-015 and Quint's model-based testing
// convention (mbt::actionTaken); kmc's own extensions use the "kmc::" prefix so that other
// tools ignore them.
const (
	itfFormatDescription = "https://apalache-mc.org/docs/adr/015adr-trace.html"
	actionTakenVar       = "mbt::actionTaken"
	initAction           = "init" // mbt::actionTaken of the initial state, as Quint writes it
)

// ITFOptions control WriteITF.
type ITFOptions struct {
	Source      string // the spec file the trace comes from, for #meta.source
	Description string // free text for #meta.description; a default names the property
	Check       string // the spec's check the trace comes from, for #meta.kmc::check
	// View is the --view selection to print the trace with ("logs,epochCaches", "all"),
	// for #meta.kmc::view: kmc render's default. "" writes nothing.
	View string
	// Config, when not nil, is the configuration the trace was made with: #meta's
	// kmc::specSha256, kmc::sets and kmc::config. kmc replay and kmc why rebuild the model
	// from it without the spec file.
	Config *RunConfig
}

// RunConfig is the configuration a trace was made with, as its #meta records it.
type RunConfig struct {
	// SpecSHA256 is the hex SHA-256 of the spec file (ITFOptions.Source) the trace was made
	// from, for #meta.kmc::specSha256.
	SpecSHA256 string
	// Sets are the --set overrides the spec was loaded with, as given and in order (kmc
	// check's --fix NAME is fixes+=NAME), for #meta.kmc::sets.
	Sets []string
	// Resolved is the check as it ran, every constant, fault budget and switch resolved
	// (specs.Resolved's JSON form: an object), for #meta.kmc::config. It is written compact.
	Resolved json.RawMessage
}

// WriteITF writes t in the Informal Trace Format (Apalache ADR-015): "#meta", "vars",
// "states" (each with "#meta" {index, action, kind, and kmc's kmc::events and kmc::views
// when the trace has them} and the variable "mbt::actionTaken")
// and, for a lasso, "loop": the index of the state the last state goes back to. A trace
// that stutters forever in its last state has loop = its last index and "kmc::stutter".
// Values are written in their canonical compact form; a value that is not valid ITF is an
// error.
func WriteITF(w io.Writer, t *checker.Trace, opts ITFOptions) error {
	if err := validTrace(t); err != nil {
		return fmt.Errorf("itf: %w", err)
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"#meta\": {")
	desc := opts.Description
	if desc == "" {
		desc = "Created by kmc"
		if t.Property != "" {
			desc += ": a counterexample to " + t.Property
		}
	}
	meta := [][2]any{
		{"format", "ITF"},
		{"format-description", itfFormatDescription},
		{"source", opts.Source},
		{"description", desc},
	}
	if opts.Check != "" {
		meta = append(meta, [2]any{"kmc::check", opts.Check})
	}
	if opts.View != "" {
		meta = append(meta, [2]any{"kmc::view", opts.View})
	}
	if c := opts.Config; c != nil {
		if c.SpecSHA256 != "" {
			meta = append(meta, [2]any{"kmc::specSha256", c.SpecSHA256})
		}
		meta = append(meta, [2]any{"kmc::sets", append([]string{}, c.Sets...)})
		if len(c.Resolved) > 0 {
			var cfg bytes.Buffer
			if err := compactObject(&cfg, c.Resolved); err != nil {
				return fmt.Errorf("itf: #meta.kmc::config: %w", err)
			}
			meta = append(meta, [2]any{"kmc::config", json.RawMessage(cfg.Bytes())})
		}
	}
	if t.Property != "" {
		meta = append(meta, [2]any{"kmc::property", t.Property})
	}
	if len(t.Actors) > 0 {
		meta = append(meta, [2]any{"kmc::actors", t.Actors})
	}
	if t.Loop >= 0 {
		meta = append(meta, [2]any{"kmc::backAction", t.BackAction}, [2]any{"kmc::backKind", t.BackKind})
		if t.BackEvents != "" {
			meta = append(meta, [2]any{"kmc::backEvents", json.RawMessage(t.BackEvents)})
		}
	}
	if t.Stutter {
		meta = append(meta, [2]any{"kmc::stutter", true})
	}
	if t.Witness != "" {
		meta = append(meta, [2]any{"kmc::witness", t.Witness})
	}
	for i, kv := range meta {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    ")
		writeJSON(&b, kv[0])
		b.WriteString(": ")
		writeJSON(&b, kv[1])
	}
	b.WriteString("\n  },\n  \"vars\": ")
	writeJSON(&b, append(append([]string(nil), t.Vars...), actionTakenVar))
	b.WriteString(",\n  \"states\": [")
	for i, s := range t.States {
		if i > 0 {
			b.WriteString(",")
		}
		action, kind := s.Action, s.Kind
		taken := action
		if i == 0 {
			action, kind, taken = "", "", initAction
		}
		b.WriteString("\n    {\n      \"#meta\": {\"index\": ")
		fmt.Fprintf(&b, "%d", i)
		if i > 0 {
			b.WriteString(", \"action\": ")
			writeJSON(&b, action)
			b.WriteString(", \"kind\": ")
			writeJSON(&b, kind)
		}
		if s.Events != "" {
			var ev bytes.Buffer
			if err := json.Compact(&ev, []byte(s.Events)); err != nil {
				return fmt.Errorf("itf: state %d: events: %w", i+1, err)
			}
			b.WriteString(", \"kmc::events\": ")
			b.Write(ev.Bytes())
		}
		if s.Views != "" {
			if _, err := ParseViews(s.Views); err != nil {
				return fmt.Errorf("itf: state %d: %w", i+1, err)
			}
			var vw bytes.Buffer
			_ = json.Compact(&vw, []byte(s.Views)) // valid: it parsed
			b.WriteString(", \"kmc::views\": ")
			b.Write(vw.Bytes())
		}
		b.WriteString("}")
		for v, name := range t.Vars {
			val, err := ParseValue([]byte(s.Values[v]))
			if err != nil {
				return fmt.Errorf("itf: state %d: %s: %w", i+1, name, err)
			}
			b.WriteString(",\n      ")
			writeJSON(&b, name)
			b.WriteString(": ")
			b.Write(val.AppendJSON(nil))
		}
		b.WriteString(",\n      ")
		writeJSON(&b, actionTakenVar)
		b.WriteString(": ")
		writeJSON(&b, taken)
		b.WriteString("\n    }")
	}
	b.WriteString("\n  ]")
	switch {
	case t.Loop >= 0:
		fmt.Fprintf(&b, ",\n  \"loop\": %d", t.Loop)
	case t.Stutter:
		fmt.Fprintf(&b, ",\n  \"loop\": %d", len(t.States)-1)
	}
	b.WriteString("\n}\n")
	if _, err := w.Write(escapeJSON(b.Bytes())); err != nil {
		return fmt.Errorf("itf: %w", err)
	}
	return nil
}

// compactObject writes raw, which must be a JSON object, compacted to b.
func compactObject(b *bytes.Buffer, raw []byte) error {
	if err := json.Compact(b, raw); err != nil {
		return err
	}
	if b.Len() == 0 || b.Bytes()[0] != '{' {
		b.Reset()
		return errors.New("want an object")
	}
	return nil
}

// loadRunConfig reads #meta's kmc::specSha256, kmc::sets and kmc::config: nil when the
// trace records none of them (a trace of an earlier kmc, or of another tool).
func loadRunConfig(meta map[string]json.RawMessage) (*RunConfig, error) {
	_, hasSum := meta["kmc::specSha256"]
	rawSets, hasSets := meta["kmc::sets"]
	rawCfg, hasCfg := meta["kmc::config"]
	if !hasSum && !hasSets && !hasCfg {
		return nil, nil
	}
	c := &RunConfig{}
	if err := metaString(meta, "kmc::specSha256", "#meta", &c.SpecSHA256); err != nil {
		return nil, err
	}
	if hasSets {
		if err := json.Unmarshal(rawSets, &c.Sets); err != nil {
			return nil, errors.New("#meta.kmc::sets: want an array of strings")
		}
	}
	if hasCfg {
		var cfg bytes.Buffer
		if err := compactObject(&cfg, rawCfg); err != nil {
			return nil, fmt.Errorf("#meta.kmc::config: %w", err)
		}
		c.Resolved = cfg.Bytes()
	}
	return c, nil
}

func writeJSON(b *bytes.Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)       // strings, bools and string slices always encode
	b.Truncate(b.Len() - 1) // Encode adds a newline
}

// itfFile is the top level of an ITF file as LoadITF reads it: the states are converted
// as they are read once vars is known (states holds them), and kept raw (raw) only when
// the file lists them before vars.
type itfFile struct {
	Meta   map[string]json.RawMessage
	Vars   []string
	Loop   *int
	vars   []string // Vars without the metadata variables, once Vars is read
	states []checker.TraceState
	raw    []map[string]json.RawMessage
}

// DefaultMaxTraceBytes is the largest input LoadITF and LoadITFMeta read, and LoadITFFile's
// default: 256 MiB. A longer input is an error; LoadOptions.MaxBytes changes the limit.
const DefaultMaxTraceBytes = 256 << 20

// LoadOptions control LoadITFReader and LoadITFFile.
type LoadOptions struct {
	// MaxBytes is the largest input read: 0 means DefaultMaxTraceBytes, < 0 no limit.
	MaxBytes int64
}

func (o LoadOptions) max() int64 {
	if o.MaxBytes == 0 {
		return DefaultMaxTraceBytes
	}
	return o.MaxBytes
}

// LoadITF reads an ITF trace, as WriteITF writes it or as another ITF tool (Apalache,
// Quint) does: #meta is optional everywhere; an action is read from the state's
// #meta.action or from mbt::actionTaken; variables named "mbt::..." are metadata, not
// state. Errors carry the JSON path ("states[2].x: #set[1]: ...") and the state number.
// The trace returned satisfies the renderers' invariants (see validTrace). It reads at
// most DefaultMaxTraceBytes.
func LoadITF(r io.Reader) (*checker.Trace, error) {
	t, _, err := LoadITFMeta(r)
	return t, err
}

// LoadITFMeta is LoadITF that also returns the trace's origin from #meta (source,
// description, kmc::check, kmc::view, and the configuration: kmc::specSha256, kmc::sets,
// kmc::config), as far as the file records it.
func LoadITFMeta(r io.Reader) (*checker.Trace, ITFOptions, error) {
	return LoadITFReader(r, LoadOptions{})
}

// LoadITFFile is LoadITFMeta for the file path, which must be a regular file (a named pipe
// or a device such as /dev/zero is an error, and nothing waits for a writer: see
// fsx.OpenRegular) of at most opts.MaxBytes bytes, checked before it is read. An error
// opening or reading it is returned as it is (an I/O failure); one of its content starts
// with "itf: " and names the JSON path, as LoadITF's do.
func LoadITFFile(path string, opts LoadOptions) (*checker.Trace, ITFOptions, error) {
	f, fi, err := fsx.OpenRegular(path)
	if err != nil {
		return nil, ITFOptions{}, err
	}
	defer f.Close()
	if max := opts.max(); max >= 0 && fi.Size() > max {
		return nil, ITFOptions{}, tooLarge(max)
	}
	return LoadITFReader(f, opts)
}

// errTooLarge is what a reader capped by LoadOptions.MaxBytes returns beyond the cap.
var errTooLarge = errors.New("over the limit")

func tooLarge(max int64) error {
	return fmt.Errorf("itf: the trace is longer than %d bytes, the limit for a trace (LoadOptions.MaxBytes)", max)
}

// capReader is a reader that fails with errTooLarge past left bytes.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, errTooLarge
	}
	return n, err
}

// LoadITFReader is LoadITFMeta with options: it reads at most opts.MaxBytes bytes of r.
// It parses as it reads, one state at a time, keeping no copy of the input: only the
// trace it returns grows with the input's size.
func LoadITFReader(r io.Reader, opts LoadOptions) (*checker.Trace, ITFOptions, error) {
	var meta ITFOptions
	if max := opts.max(); max >= 0 {
		r = &capReader{r: r, left: max}
	}
	f, err := readITF(json.NewDecoder(r))
	if errors.Is(err, errTooLarge) {
		return nil, meta, tooLarge(opts.max())
	}
	if err != nil {
		return nil, meta, err
	}
	for _, kv := range []struct {
		key string
		dst *string
	}{{"source", &meta.Source}, {"description", &meta.Description}, {"kmc::check", &meta.Check}, {"kmc::view", &meta.View}} {
		if err := metaString(f.Meta, kv.key, "#meta", kv.dst); err != nil {
			return nil, meta, fmt.Errorf("itf: %w", err)
		}
	}
	if meta.Config, err = loadRunConfig(f.Meta); err != nil {
		return nil, meta, fmt.Errorf("itf: %w", err)
	}
	t, err := loadITF(f)
	if err != nil {
		return nil, meta, err
	}
	return t, meta, nil
}

// readITF reads the top-level object of an ITF file, converting each state as it comes
// once the variables are known; keys it does not know are skipped, as json.Unmarshal skips
// them; a key given twice counts once, its last value.
func readITF(dec *json.Decoder) (*itfFile, error) {
	bad := func(err error) error {
		var syn *json.SyntaxError
		switch {
		case errors.Is(err, errTooLarge):
			return err
		case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
			return errors.New("itf: unexpected end of JSON input")
		case errors.As(err, &syn):
			return fmt.Errorf("itf: %w (at byte %d)", err, syn.Offset)
		}
		return fmt.Errorf("itf: %w", err)
	}
	delim := func(want json.Delim, what string) error {
		tok, err := dec.Token()
		if err != nil {
			return bad(err)
		}
		if d, ok := tok.(json.Delim); !ok || d != want {
			return fmt.Errorf("itf: %s: want %q, found %v", what, string(want), tok)
		}
		return nil
	}
	f := &itfFile{}
	if err := delim('{', "the trace"); err != nil {
		return nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		key, _ := tok.(string)
		switch key {
		case "#meta":
			f.Meta = nil
			err = dec.Decode(&f.Meta)
		case "vars":
			f.Vars, f.vars = nil, nil
			if err = dec.Decode(&f.Vars); err == nil && f.Vars != nil {
				if f.vars, err = stateVars(f.Vars); err != nil {
					return nil, err
				}
			}
		case "loop":
			f.Loop = nil
			err = dec.Decode(&f.Loop)
		case "states":
			err = f.readStates(dec)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			var u *json.UnmarshalTypeError
			if errors.As(err, &u) {
				return nil, fmt.Errorf("itf: %s: %w", key, err)
			}
			if strings.HasPrefix(err.Error(), "itf: ") {
				return nil, err
			}
			return nil, bad(err)
		}
	}
	if err := delim('}', "the trace"); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, errors.New("itf: data after the trace")
		}
		return nil, bad(err)
	}
	return f, nil
}

// readStates reads the states array, converting each state as it comes when the
// variables are known (and otherwise keeping it raw for loadITF).
func (f *itfFile) readStates(dec *json.Decoder) error {
	f.states, f.raw = nil, nil
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil // null: no states
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("itf: states: want an array, found %v", tok)
	}
	for i := 0; dec.More(); i++ {
		var st map[string]json.RawMessage
		if err := dec.Decode(&st); err != nil {
			return err
		}
		if f.vars == nil {
			f.raw = append(f.raw, st)
			continue
		}
		s, err := loadState(st, f.vars, i, fmt.Sprintf("states[%d]", i))
		if err != nil {
			return fmt.Errorf("itf: states[%d] (state %d): %w", i, i+1, err)
		}
		f.states = append(f.states, s)
	}
	_, err = dec.Token() // ']'
	return err
}

// stateVars is vars without the metadata variables, or an error naming a duplicate.
func stateVars(vars []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for i, v := range vars {
		if seen[v] {
			return nil, fmt.Errorf("itf: vars[%d]: duplicate variable %q", i, v)
		}
		seen[v] = true
		if !strings.HasPrefix(v, "mbt::") && !strings.HasPrefix(v, "#") {
			out = append(out, v)
		}
	}
	return out, nil
}

func loadITF(f *itfFile) (*checker.Trace, error) {
	if f.Vars == nil {
		return nil, fmt.Errorf("itf: vars: missing")
	}
	if len(f.states) == 0 && len(f.raw) == 0 {
		return nil, fmt.Errorf("itf: states: no states")
	}
	t := &checker.Trace{Loop: -1, Vars: f.vars, States: f.states}
	if len(t.Vars) == 0 {
		t.Vars = nil
	}
	if err := metaString(f.Meta, "kmc::property", "#meta", &t.Property); err != nil {
		return nil, fmt.Errorf("itf: %w", err)
	}
	if err := metaString(f.Meta, "kmc::witness", "#meta", &t.Witness); err != nil {
		return nil, fmt.Errorf("itf: %w", err)
	}
	if raw, ok := f.Meta["kmc::actors"]; ok {
		if err := json.Unmarshal(raw, &t.Actors); err != nil {
			return nil, fmt.Errorf("itf: #meta.kmc::actors: %w", err)
		}
	}
	for i, st := range f.raw { // states listed before vars
		path := fmt.Sprintf("states[%d]", i)
		s, err := loadState(st, f.vars, i, path)
		if err != nil {
			return nil, fmt.Errorf("itf: %s (state %d): %w", path, i+1, err)
		}
		t.States = append(t.States, s)
	}
	var stutter bool
	if raw, ok := f.Meta["kmc::stutter"]; ok {
		if err := json.Unmarshal(raw, &stutter); err != nil {
			return nil, fmt.Errorf("itf: #meta.kmc::stutter: %w", err)
		}
	}
	if f.Loop != nil {
		l := *f.Loop
		if l < 0 || l >= len(t.States) {
			return nil, fmt.Errorf("itf: loop: %d outside the %d states", l, len(t.States))
		}
		if stutter {
			if l != len(t.States)-1 {
				return nil, fmt.Errorf("itf: loop: a stuttering trace loops on its last state %d (got %d)", len(t.States)-1, l)
			}
			t.Stutter = true
		} else {
			t.Loop = l
			if err := metaString(f.Meta, "kmc::backAction", "#meta", &t.BackAction); err != nil {
				return nil, fmt.Errorf("itf: %w", err)
			}
			if err := metaString(f.Meta, "kmc::backKind", "#meta", &t.BackKind); err != nil {
				return nil, fmt.Errorf("itf: %w", err)
			}
			if t.BackKind == "" {
				t.BackKind = kindOf(t.BackAction)
			}
			if raw, ok := f.Meta["kmc::backEvents"]; ok {
				var ev []map[string]any
				if err := json.Unmarshal(raw, &ev); err != nil {
					return nil, fmt.Errorf("itf: #meta.kmc::backEvents: %w", err)
				}
				var c bytes.Buffer
				_ = json.Compact(&c, raw) // valid: it unmarshalled
				t.BackEvents = c.String()
			}
		}
	} else if stutter {
		return nil, fmt.Errorf("itf: #meta.kmc::stutter: set without a loop")
	}
	if err := validTrace(t); err != nil {
		return nil, fmt.Errorf("itf: %w", err)
	}
	return t, nil
}

func loadState(st map[string]json.RawMessage, vars []string, i int, path string) (checker.TraceState, error) {
	var s checker.TraceState
	var meta map[string]json.RawMessage
	if raw, ok := st["#meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return s, fmt.Errorf("#meta: %w", err)
		}
	}
	if raw, ok := meta["index"]; ok {
		var idx int
		if err := json.Unmarshal(raw, &idx); err != nil {
			return s, fmt.Errorf("#meta.index: %w", err)
		}
		if idx != i {
			return s, fmt.Errorf("#meta.index: got %d, want %d", idx, i)
		}
	}
	if err := metaString(meta, "action", "#meta", &s.Action); err != nil {
		return s, err
	}
	if s.Action == "" {
		if raw, ok := st[actionTakenVar]; ok {
			if err := json.Unmarshal(raw, &s.Action); err != nil {
				return s, fmt.Errorf("%s: %w", actionTakenVar, err)
			}
		}
	}
	if err := metaString(meta, "kind", "#meta", &s.Kind); err != nil {
		return s, err
	}
	if raw, ok := meta["kmc::events"]; ok {
		var ev []map[string]any
		if err := json.Unmarshal(raw, &ev); err != nil {
			return s, fmt.Errorf("#meta.kmc::events: %w", err)
		}
		var c bytes.Buffer
		_ = json.Compact(&c, raw) // valid: it unmarshalled
		s.Events = c.String()
	}
	if raw, ok := meta["kmc::views"]; ok {
		var c bytes.Buffer
		if err := json.Compact(&c, raw); err != nil {
			return s, fmt.Errorf("#meta.kmc::views: %w", err)
		}
		if _, err := ParseViews(c.String()); err != nil {
			return s, fmt.Errorf("#meta.kmc::%w", err)
		}
		s.Views = c.String()
	}
	if i == 0 {
		s.Action, s.Kind, s.Events = "", "", ""
	} else {
		if s.Action == "" {
			return s, fmt.Errorf("no action: want #meta.action or %s", actionTakenVar)
		}
		if s.Kind == "" {
			s.Kind = kindOf(s.Action)
		}
	}
	for _, name := range vars {
		raw, ok := st[name]
		if !ok {
			return s, fmt.Errorf("%s: missing", name)
		}
		v, err := parseValueAt(raw, name)
		if err != nil {
			return s, err
		}
		s.Values = append(s.Values, string(v.AppendJSON(nil)))
	}
	for k := range st {
		if !strings.HasPrefix(k, "#") && !strings.HasPrefix(k, "mbt::") && !contains(vars, k) {
			return s, fmt.Errorf("%s: not a variable named in vars", k)
		}
	}
	return s, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseValueAt parses a value and prefixes errors with path instead of "$".
func parseValueAt(data []byte, path string) (Value, error) {
	v, err := ParseValue(data)
	if err != nil {
		msg := err.Error()
		if strings.HasPrefix(msg, "$") {
			return Value{}, fmt.Errorf("%s%s", path, strings.TrimPrefix(msg, "$"))
		}
		return Value{}, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

func metaString(meta map[string]json.RawMessage, key, path string, dst *string) error {
	raw, ok := meta[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s.%s: want a string", path, key)
	}
	return nil
}

// kindOf is the kind of an action named "Kind(args)": the name before the arguments.
func kindOf(action string) string {
	if i := strings.IndexByte(action, '('); i >= 0 {
		return action[:i]
	}
	return action
}
