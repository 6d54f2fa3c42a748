package kafka

import (
	"strings"
	"testing"
)

// TestKindParamsMatchDocs: every kind of action has named arguments, as many as KindDocs
// lists for it (its "(b, s, leo, k)" prefix, or both forms of "(l), or (c, l)"), and
// ActionParams names every action ActionName prints.
func TestKindParamsMatchDocs(t *testing.T) {
	for _, k := range kindNames {
		doc := KindDocs[k]
		var counts []int
		for _, part := range strings.SplitN(doc, ":", 2)[:1] {
			for _, p := range strings.Split(part, ", or ") {
				p = strings.TrimSpace(p)
				if i := strings.Index(p, ")"); strings.HasPrefix(p, "(") && i > 0 {
					counts = append(counts, len(strings.Split(p[1:i], ",")))
				}
			}
		}
		got := kindParams[k]
		if len(got) != len(counts) {
			t.Errorf("%s: %d argument lists, KindDocs %q has %d", k, len(got), doc, len(counts))
			continue
		}
		for i, names := range got {
			if len(names) != counts[i] {
				t.Errorf("%s: list %d names %v, KindDocs %q has %d arguments", k, i, names, doc, counts[i])
			}
		}
	}
	if len(kindParams) != len(kindNames) {
		t.Errorf("kindParams has %d kinds, the model %d", len(kindParams), len(kindNames))
	}
	for _, cp := range []bool{false, true} {
		m := &Model{}
		if cp {
			m.C.Controllers = 2
		}
		for k := range kindNames {
			name := m.ActionName(Action(k, 1, 1, 1, 1))
			n := strings.Count(name, ",") + 1
			if m.ActionParams(kindNames[k], n) == nil {
				t.Errorf("controllers=%d: %s: no names for its %d arguments", m.C.Controllers, name, n)
			}
		}
	}
}
