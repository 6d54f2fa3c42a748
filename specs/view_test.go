package specs

import (
	"strings"
	"testing"
)

// Reference: issue 28 (a spec chooses its view; the default follows the properties
// checked: the control plane for KAFKA-5480 and KAFKA-14154, whose log grid is empty, the
// epoch caches for KAFKA-13077, the logs for KAFKA-18723).
func TestSpecDefaultView(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"kafka-5480.toml", "controlPlane"},
		{"kafka-14154.toml", "controlPlane"},
		{"kafka-13077.toml", "epochCaches"},
		{"kafka-18723.toml", "logs"},
	} {
		s, err := Load(tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.View != tc.want || s.Family.DefaultView != tc.want || s.ViewSet {
			t.Errorf("%s: got view %q (family default %q, set %v), want %q from its properties %v",
				tc.path, s.View, s.Family.DefaultView, s.ViewSet, tc.want, s.Properties)
		}
	}
}

const viewSpec = `model = "kafka"
properties = ["NoPermanentDivergence", "FollowerEventuallyCatchesUp"]

[options]
view = %q

[[check]]
name = "a"
expect = "ok"
`

func TestSpecOptionView(t *testing.T) {
	for _, tc := range []struct{ view, want, err string }{
		{"controlPlane", "controlPlane", ""},
		{"logs, epochCaches", "logs, epochCaches", ""},
		{"all", "all", ""},
		{"none", "", ""},
		{"", "", `view.toml:5:8: options.view: empty: want a view of the model (logs, epochCaches, controlPlane)`},
		{"logs,bogus", "", `view.toml:5:8: options.view: unknown view "bogus": want a view of the model`},
		{"logs,none", "", `view.toml:5:8: options.view: none goes alone`},
	} {
		src := strings.Replace(viewSpec, "%q", `"`+tc.view+`"`, 1)
		s, err := Parse("view.toml", []byte(src), nil)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("view %q: got error %v, want %q", tc.view, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("view %q: %v", tc.view, err)
			continue
		}
		if s.View != tc.want || s.Family.DefaultView != tc.want {
			t.Errorf("view %q: got %q (family default %q), want %q", tc.view, s.View, s.Family.DefaultView, tc.want)
		}
	}
	// Without [options] view: the views of both properties, in the model's order.
	src := strings.Replace(viewSpec, "[options]\nview = %q\n", "", 1)
	s, err := Parse("view.toml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.View != "logs,epochCaches" {
		t.Errorf("default: got %q, want logs,epochCaches", s.View)
	}
	if _, err := Parse("view.toml", []byte(strings.Replace(viewSpec, "%q", "3", 1)), nil); err == nil || !strings.Contains(err.Error(), "options.view: must be a string") {
		t.Errorf("view = 3: got %v", err)
	}
}
