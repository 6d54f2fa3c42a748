package kafka

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// testView is a view as a reader checks it: each cell as "text" or "text[mark,mark]".
type testView struct {
	Name    string
	Columns []string
	Rows    [][]string
	Notes   []string
}

// decodeViews reads AppendViews's JSON back, checking that every cell's marks are declared.
func decodeViews(t *testing.T, buf []byte) map[string]testView {
	t.Helper()
	var raw []struct {
		Name    string              `json:"name"`
		Columns []string            `json:"columns"`
		Rows    [][]json.RawMessage `json:"rows"`
		Notes   []string            `json:"notes"`
		Marks   []struct{ Name, Style, Doc string }
	}
	if err := json.Unmarshal(buf, &raw); err != nil {
		t.Fatalf("views are not JSON: %v\n%s", err, buf)
	}
	out := map[string]testView{}
	for _, r := range raw {
		declared := map[string]bool{}
		for _, m := range r.Marks {
			declared[m.Name] = true
		}
		v := testView{Name: r.Name, Columns: r.Columns, Notes: r.Notes}
		for _, row := range r.Rows {
			if len(row) != len(r.Columns) {
				t.Fatalf("view %s: a row of %d cells for %d columns", r.Name, len(row), len(r.Columns))
			}
			var cells []string
			for _, c := range row {
				var s string
				if json.Unmarshal(c, &s) != nil {
					var obj struct {
						Text  string
						Marks []string
					}
					if err := json.Unmarshal(c, &obj); err != nil {
						t.Fatalf("view %s: bad cell %s", r.Name, c)
					}
					for _, m := range obj.Marks {
						if !declared[m] {
							t.Fatalf("view %s: mark %q not declared", r.Name, m)
						}
					}
					s = obj.Text + "[" + strings.Join(obj.Marks, ",") + "]"
				}
				cells = append(cells, s)
			}
			v.Rows = append(v.Rows, cells)
		}
		out[r.Name] = v
	}
	return out
}

func logOf(es ...Entry) (log [MaxLog]Entry, leo uint8) {
	copy(log[:], es)
	return log, uint8(len(es))
}

// The log grid of known states: the high watermark and log end offset tag their offsets,
// records that differ from the current leader's are marked diff, the leader's column says
// so, and a stale leader (an older epoch) is not the one compared with.
// Reference: KAFKA-18723 (a follower's record diverging below its high watermark).
func TestLogView(t *testing.T) {
	m := newModel(DefaultConfig()) // 3 brokers
	mk := func(setup func(s *State)) *State {
		var s State
		for b := 0; b < 3; b++ {
			s.B[b].Alive, s.B[b].Role, s.B[b].Epoch = true, RoleFollower, 2
		}
		setup(&s)
		return &s
	}
	setLog := func(r *Replica, hw uint8, es ...Entry) {
		r.Log, r.LEO = logOf(es...)
		r.HW = hw
	}
	tests := []struct {
		name    string
		s       *State
		columns []string
		rows    [][]string
		note    string
	}{{
		name: "divergence below the follower's high watermark",
		s: mk(func(s *State) {
			setLog(&s.B[0], 2, Entry{1, 1}, Entry{1, 2})
			s.B[1].Alive = false
			setLog(&s.B[1], 1, Entry{1, 1})
			s.B[2].Role = RoleLeader
			setLog(&s.B[2], 1, Entry{1, 1}, Entry{2, 3})
		}),
		columns: []string{"offset", "b1", "b2 (down)", "b3 (leader e2)"},
		rows: [][]string{
			{"0", "e1:r1", "e1:r1", "e1:r1"},
			{"1", "e1:r2[diff]", "[hw,leo]", "e2:r3[hw]"},
			{"2", "[hw,leo]", "", "[leo]"},
		},
		note: "compared with the leader b3 (epoch 2)",
	}, {
		name: "no leader: nothing compared",
		s: mk(func(s *State) {
			setLog(&s.B[0], 0, Entry{1, 1})
			setLog(&s.B[1], 0, Entry{2, 2})
		}),
		columns: []string{"offset", "b1", "b2", "b3"},
		rows: [][]string{
			{"0", "e1:r1[hw]", "e2:r2[hw]", "[hw,leo]"},
			{"1", "[leo]", "[leo]", ""},
		},
		note: "no replica leads: nothing compared",
	}, {
		name: "a stale leader is compared with the newer one",
		s: mk(func(s *State) {
			s.B[0].Role, s.B[0].Epoch = RoleLeader, 1
			setLog(&s.B[0], 0, Entry{1, 1}, Entry{1, 2})
			s.B[1].Role, s.B[1].Epoch = RoleLeader, 2
			setLog(&s.B[1], 0, Entry{1, 1}, Entry{2, 3})
		}),
		columns: []string{"offset", "b1 (leader e1)", "b2 (leader e2)", "b3"},
		rows: [][]string{
			{"0", "e1:r1[hw]", "e1:r1[hw]", "[hw,leo]"},
			{"1", "e1:r2[diff]", "e2:r3", ""},
			{"2", "[leo]", "[leo]", ""},
		},
		note: "compared with the leader b2 (epoch 2)",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := decodeViews(t, m.AppendViews(tt.s, nil))
			if _, ok := vs["controlPlane"]; ok {
				t.Errorf("got a controlPlane view with controllers = 1")
			}
			v := vs["logs"]
			if !reflect.DeepEqual(v.Columns, tt.columns) {
				t.Errorf("columns: got %q, want %q", v.Columns, tt.columns)
			}
			if !reflect.DeepEqual(v.Rows, tt.rows) {
				t.Errorf("rows: got %q, want %q", v.Rows, tt.rows)
			}
			if !containsString(v.Notes, tt.note) {
				t.Errorf("notes: got %q, want %q among them", v.Notes, tt.note)
			}
		})
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The epoch caches and, with controllers = 2, the control plane: the store's partition
// state, each incarnation's status (active, zombie, resigned) and its cached values, those
// that differ from the store marked stale.
// Reference: KAFKA-5480 (a zombie controller's stale cache), KAFKA-13077 (epoch caches).
func TestCacheAndControlPlaneViews(t *testing.T) {
	c := DefaultConfig()
	c.Version, c.Controllers, c.Failover = "2.8", 2, 1
	m := newModel(c)
	s := m.Init(nil)[0]
	s.B[0].Cache[1], s.B[0].NCache = EpochEntry{3, 2}, 2
	// Incarnation 1 lost its session (a zombie); incarnation 2 on b2 took over and elected b2.
	s.CP.C[0].Session = false
	s.CP.C[1] = Incarnation{Broker: 1, Epoch: 2, Active: true, Session: true, Leader: 2, LEpoch: 2, ZkVer: 1, ISR: 2, Live: 7}
	s.CP.N, s.CP.CEpoch, s.CP.CVersion, s.CP.Writer = 2, 2, 1, 2
	s.Ctrl.Leader, s.Ctrl.Epoch, s.Ctrl.PEpoch, s.Ctrl.ISR = 2, 2, 1, 2
	vs := decodeViews(t, m.AppendViews(&s, nil))
	tests := []struct {
		view string
		rows [][]string
	}{
		{"epochCaches", [][]string{
			{"b1 (leader e1)", "e1@0 e3@2"},
			{"b2", "-"},
			{"b3", "-"},
		}},
		{"controlPlane", [][]string{
			{"store", "/controller: c2", "2", "2", "{2}", "1", "2", "{1,2,3}", ""},
			{"c1 on b1", "zombie (session lost)", "1[stale]", "1[stale]", "{1,2,3}[stale]", "0[stale]", "1", "{1,2,3}", ""},
			{"c2 on b2", "active", "2", "2", "{2}", "1", "2", "{1,2,3}", ""},
		}},
	}
	for _, tt := range tests {
		v, ok := vs[tt.view]
		if !ok {
			t.Fatalf("no view %s among %v", tt.view, vs)
		}
		if !reflect.DeepEqual(v.Rows, tt.rows) {
			t.Errorf("%s: got %q, want %q", tt.view, v.Rows, tt.rows)
		}
	}
	s.CP.C[0].Active = false
	want := []string{"c1 on b1", "resigned", "1", "1", "{1,2,3}", "0", "1", "{1,2,3}", ""}
	if got := decodeViews(t, m.AppendViews(&s, nil))["controlPlane"].Rows[1]; !reflect.DeepEqual(got, want) {
		t.Errorf("a resigned incarnation (its cache unused, nothing stale): got %q, want %q", got, want)
	}
}
