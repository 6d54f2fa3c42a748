package kafka

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected output of model/kafka/testdata transcripts")

// A transcript (STYLE §6) is a sequence of blocks: a command line, input lines, "----",
// then the expected output up to a blank line. Lines starting with "#" between blocks are
// comments (each file names its references there). Commands:
//
//	config key=value ...   start from the initial state of that configuration (keys as in
//	                       the spec files; fixes=KAFKA-18723,KAFKA-13077); prints it
//	run                    apply the actions named by the input lines, one per line, each of
//	                       which must be enabled; prints the final state
//	enabled                print the names of the enabled actions
//
// A model error (an action not enabled) is output, not a test failure.
type transcript struct {
	m *Model
	s State
}

func (tr *transcript) exec(t *testing.T, cmd string, input []string) string {
	f := strings.Fields(cmd)
	switch f[0] {
	case "config":
		c := DefaultConfig()
		for _, kv := range f[1:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("config: bad argument %q", kv)
			}
			if k == "fixes" {
				for _, fix := range strings.Split(v, ",") {
					sw, ok := SwitchByName(fix)
					if !ok {
						t.Fatalf("config: unknown fix %q", fix)
					}
					c.Switches = c.Switches.With(sw, true)
				}
				continue
			}
			if k == "version" {
				c.Version = v
				continue
			}
			if k == "without" {
				for _, fix := range strings.Split(v, ",") {
					if sw, ok := SwitchByName(fix); ok {
						c.Without |= sw.Fix
					}
				}
				continue
			}
			if k == "control_plane" {
				c.KRaft = v == "kraft"
				continue
			}
			if k == "unclean_election" || k == "controller_host_crash" || k == "elr" {
				on, err := strconv.ParseBool(v)
				if err != nil {
					t.Fatalf("config: %s: %v", k, err)
				}
				if k == "elr" {
					c.Switches = c.Switches.With(KIP966, on)
					continue
				}
				*map[string]*bool{"unclean_election": &c.UncleanElection, "controller_host_crash": &c.ControllerHostCrash}[k] = on
				continue
			}
			if k == "record_sizes" {
				c.RecordSizes = -1
				for i, n := range RecordSizeNames {
					if n == v {
						c.RecordSizes = i
					}
				}
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("config: %s: %v", k, err)
			}
			p := map[string]*int{"brokers": &c.Brokers, "min_isr": &c.MinISR, "max_records": &c.MaxRecords,
				"max_epoch": &c.MaxEpoch, "max_fetch_records": &c.MaxFetchRecords, "crash": &c.Crash,
				"unclean_crash": &c.UncleanCrash, "power_loss": &c.PowerLoss, "lag": &c.Lag, "message_loss": &c.MessageLoss,
				"leader_change": &c.LeaderChange, "controllers": &c.Controllers,
				"controller_broker": &c.ControllerBroker, "controller_failover": &c.Failover,
				"session_loss": &c.SessionLoss, "controlled_shutdown": &c.ControlledShutdown,
				"preferred_election": &c.PreferredElection, "control_loss": &c.ControlLoss,
				"quorum_failover": &c.QuorumFailover}[k]
			if p == nil {
				t.Fatalf("config: unknown key %q", k)
			}
			*p = n
		}
		m, err := New(c)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		tr.m = m
		tr.s = m.Init(nil)[0]
		return m.Format(&tr.s)
	case "run":
		for _, name := range input {
			var succ []State
			var acts []uint64
			succ, acts = tr.m.Next(&tr.s, succ, acts)
			found := false
			for i, a := range acts {
				if tr.m.ActionName(a) == name {
					tr.s, found = succ[i], true
					break
				}
			}
			if !found {
				return "error: " + name + " is not enabled\n" + tr.m.Format(&tr.s)
			}
			if err := tr.m.Valid(&tr.s); err != nil {
				t.Fatalf("after %s: %v", name, err)
			}
		}
		return tr.m.Format(&tr.s)
	case "enabled":
		_, acts := tr.m.Next(&tr.s, nil, nil)
		var b strings.Builder
		for _, a := range acts {
			b.WriteString(tr.m.ActionName(a))
			b.WriteByte('\n')
		}
		return b.String()
	}
	t.Fatalf("unknown command %q", cmd)
	return ""
}

func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			var out []string
			tr := &transcript{}
			for i := 0; i < len(lines); {
				l := lines[i]
				if l == "" || strings.HasPrefix(l, "#") {
					out = append(out, l)
					i++
					continue
				}
				cmd, cmdLine := l, i+1
				out = append(out, l)
				i++
				var input []string
				for i < len(lines) && lines[i] != "----" {
					input = append(input, lines[i])
					out = append(out, lines[i])
					i++
				}
				if i == len(lines) {
					t.Fatalf("%s:%d: command without ----", file, cmdLine)
				}
				out = append(out, "----")
				i++
				var want []string
				for i < len(lines) && lines[i] != "" {
					want = append(want, lines[i])
					i++
				}
				if strings.Fields(cmd)[0] != "config" && tr.m == nil {
					t.Fatalf("%s:%d: %s before config", file, cmdLine, cmd)
				}
				got := tr.exec(t, cmd, input)
				out = append(out, strings.Split(strings.TrimSuffix(got, "\n"), "\n")...)
				if w := strings.Join(want, "\n") + "\n"; got != w && !*update {
					t.Errorf("%s:%d: %s\ngot:\n%swant:\n%s", file, cmdLine, cmd, got, w)
				}
			}
			if *update {
				text := strings.Join(out, "\n")
				if !strings.HasSuffix(text, "\n") {
					text += "\n"
				}
				if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// Every kind of action is exercised by some transcript.
// Reference: issue 3 ("covering each action and each fix switch").
func TestTranscriptsCoverEveryAction(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	var all strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(data)
	}
	text := all.String()
	for _, k := range kindNames {
		if !strings.Contains(text, "\n"+k+"(") {
			t.Errorf("no transcript applies %s", k)
		}
	}
	for _, fix := range []string{"KAFKA-18723", "KAFKA-13077", "KAFKA-6082", "KAFKA-14154", "KAFKA-14154-proposed",
		"KAFKA-18723-strict", "KAFKA-18723-send-side"} {
		if !strings.Contains(text, "fixes="+fix) {
			t.Errorf("no transcript turns on %s", fix)
		}
	}
	for _, p := range Profiles {
		if !strings.Contains(text, "version="+p.Name+" ") && !strings.Contains(text, "version="+p.Name+"\n") {
			t.Errorf("no transcript uses version=%s", p.Name)
		}
	}
	for _, rs := range RecordSizeNames[1:] {
		if !strings.Contains(text, "record_sizes="+rs) {
			t.Errorf("no transcript uses record_sizes=%s", rs)
		}
	}
	if !strings.Contains(text, "without=") {
		t.Errorf("no transcript takes a fix out of its version")
	}
}
