package specs

import (
	"strings"
	"testing"
)

// Reference: issue 11, defect 5 (contradictions between fields, such as min_isr above
// brokers, found only when the model was built: no position, and after other checks ran).
func TestCrossFieldRulesAtLoad(t *testing.T) {
	const kafka = `model = "kafka"
properties = ["LeaderInISR"]

[constants]
brokers = 3
%TOP%
[[check]]
name = "fine"
expect = "ok"

[[check]]
name = "odd"
expect = "ok"
%CHECK%
`
	spec := func(top, check string) string {
		return strings.NewReplacer("%TOP%", top, "%CHECK%", check).Replace(kafka)
	}
	tests := []struct {
		name string
		src  string
		sets []string
		want string
	}{
		{"in the check", spec("", "[check.constants]\nmin_isr = 4"), nil,
			"s.toml:15:11: check[1].constants.min_isr: min_isr = 4 outside 1..3"},
		{"at the top", spec("min_isr = 4", ""), nil,
			"s.toml:6:11: constants.min_isr: min_isr = 4 outside 1..3 (checks fine, odd)"},
		{"by --set", spec("", "[check.constants]\nbrokers = 5"), []string{"max_epoch=2", "min_isr=4"},
			"--set:2:9: constants.min_isr: min_isr = 4 outside 1..3 (check fine)"},
		{"two fields, one set", spec("", "[check.faults]\nsession_loss = 1"), nil,
			"s.toml:15:16: check[1].faults.session_loss: controller_failover and session_loss need controllers >= 2"},
		{"the first field set is named", spec("", "[check.constants]\ncontrollers = 2\n[check.faults]\nleader_change = 1"), nil,
			"s.toml:17:17: check[1].faults.leader_change: leader_change is not modelled with controllers >= 2"},
		// Reference: issue 13: every contradiction at once, not one per run.
		{"all at once", spec("min_isr = 4\ncontroller_broker = 5", "[check.faults]\nsession_loss = 1\ncontrol_loss = 1"), nil,
			"s.toml:6:11: constants.min_isr: min_isr = 4 outside 1..3 (checks fine, odd)\n" +
				"s.toml:7:21: constants.controller_broker: controller_broker = 5 outside 1..3 (checks fine, odd)"},
		{"both rules at once", spec("", "[check.faults]\nsession_loss = 1\ncontrol_loss = 1"), nil,
			"s.toml:15:16: check[1].faults.session_loss: controller_failover and session_loss need controllers >= 2\n" +
				"s.toml:16:16: check[1].faults.control_loss: control_loss needs controllers >= 2 (the single controller's AlterPartition has no retry to model)"},
		// Reference: issue 12 (mechanisms that need the control plane).
		{"control_loss without the control plane", spec("", "[check.faults]\ncontrol_loss = 1"), nil,
			"s.toml:15:16: check[1].faults.control_loss: control_loss needs controllers >= 2 (the single controller's AlterPartition has no retry to model)"},
		{"controller_host_crash without the control plane", spec("", "[check.constants]\ncontroller_host_crash = true"), nil,
			"s.toml:15:25: check[1].constants.controller_host_crash: controller_host_crash needs controllers >= 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("s.toml", []byte(tt.src), tt.sets)
			if err == nil {
				t.Fatalf("Parse: got no error, want\n%s", tt.want)
			}
			if got := errorList(t, err).Error(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestCrossFieldReference(t *testing.T) {
	// AsyncIsr has fewer replicas than KafkaReplication: a rule across variant and replicas.
	src := `model = "reference"
properties = ["TypeOk"]
[constants]
variant = "AsyncIsr"
[[check]]
name = "a"
expect = "ok"
constants = { replicas = 5 }
`
	_, err := Parse("s.toml", []byte(src), nil)
	if err == nil {
		t.Fatal("Parse: got no error")
	}
	want := "s.toml:8:1: check[0].constants.replicas: replicas: AsyncIsr must have 1..4 (got 5)"
	if got := errorList(t, err).Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestConfigKey(t *testing.T) {
	// A message that names no field set anywhere points at the check's header.
	v := &validator{path: "s.toml", pos: map[string]keyPos{"check[0]": {Pos{"s.toml", 9, 1}, Pos{"s.toml", 9, 1}}},
		setIn: []map[string]string{{}}}
	fam, _ := FamilyByName("kafka")
	path, pos := v.configKey(fam, 0, "no field here")
	if path != "check[0]" || pos.String() != "s.toml:9:1" {
		t.Errorf("got %s at %s, want check[0] at s.toml:9:1", path, pos)
	}
}
