package kafka

import "testing"

// Reference: issue 13 (vocabulary): every variable and every kind of action has a doc.
func TestVocabulary(t *testing.T) {
	for _, v := range append(append(append([]string{}, varNames...), varNamesCP...), varNamesKR...) {
		if VarDocs[v] == "" {
			t.Errorf("variable %s has no doc", v)
		}
	}
	for _, k := range kindNames {
		if KindDocs[k] == "" {
			t.Errorf("action kind %s has no doc", k)
		}
	}
	if len(KindDocs) != len(kindNames) {
		t.Errorf("KindDocs has %d entries for %d kinds", len(KindDocs), len(kindNames))
	}
}
