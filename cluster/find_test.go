package cluster

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"kmc/app/checkpoint"
)

// TestFindNodes: the coordinator takes the nodes of its build that answer: --nodes N of them
// as soon as N answer; fewer when fewer answer within the wait, saying so (a node killed just
// before a run began is one lost just after: the result is the same), with the nodes of
// another build named; none is an error.
func TestFindNodes(t *testing.T) {
	nc, _ := jetStream(t)
	answer := func(id, version string) {
		sub, err := nc.Subscribe(helloSubject, func(m *nats.Msg) {
			b, _ := json.Marshal(map[string]string{"ID": id, "Version": version})
			_ = m.Respond(b)
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sub.Unsubscribe() })
	}
	if _, _, err := findNodes(nc, 2, 600*time.Millisecond); err == nil || !strings.Contains(err.Error(), "found no kmc node") {
		t.Errorf("no node: %v", err)
	}
	answer("n2", checkpoint.Version())
	answer("n1", checkpoint.Version())
	answer("old", "another build")
	ids, short, err := findNodes(nc, 2, 5*time.Second)
	if err != nil || short != "" || !slices.Equal(ids, []string{"n1", "n2"}) {
		t.Errorf("--nodes 2 of 2: %q %q %v", ids, short, err)
	}
	ids, short, err = findNodes(nc, 3, 1200*time.Millisecond)
	if err != nil || !slices.Equal(ids, []string{"n1", "n2"}) ||
		short != "found 2 nodes of this kmc build in 1.2s, --nodes 3 (nodes of another kmc build, left out: old): going on with n1, n2" {
		t.Errorf("--nodes 3 of 2: %q %q %v", ids, short, err)
	}
	if ids, _, err = findNodes(nc, 1, 5*time.Second); err != nil || len(ids) != 1 {
		t.Errorf("--nodes 1 of 2: %q %v", ids, err)
	}
}
