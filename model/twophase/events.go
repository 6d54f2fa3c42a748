package twophase

import "strconv"

// Actors names the actors of the message sequence chart: the TM, then rm1..rmN.
func (m *Model) Actors() []string {
	actors := []string{"TM"}
	for r := 0; r < m.N; r++ {
		actors = append(actors, "rm"+strconv.Itoa(r+1))
	}
	return actors
}

// AppendEvents appends, as a JSON array, the messages the step a from s to t sends and
// receives (checker.Eventer). The Commit and Abort decisions are broadcast: one message per
// RM, so that each RM's receipt pairs with a send. An RM choosing to abort is a local step.
func (m *Model) AppendEvents(s *State, a uint64, t *State, buf []byte) []byte {
	k, r := int(a>>8), int(a&0xff)
	buf = append(buf, '[')
	switch k {
	case KindRMPrepare:
		buf = event(buf, "send", rmActor(r), "TM", "prepared-"+rmActor(r), "Prepared")
	case KindTMRcvPrepared:
		buf = event(buf, "recv", "TM", rmActor(r), "prepared-"+rmActor(r), "Prepared")
	case KindTMCommit, KindTMAbort:
		what, label := "commit-", "Commit"
		if k == KindTMAbort {
			what, label = "abort-", "Abort"
		}
		for i := 0; i < m.N; i++ {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = event(buf, "send", "TM", rmActor(i), what+rmActor(i), label)
		}
	case KindRMRcvCommitMsg:
		buf = event(buf, "recv", rmActor(r), "TM", "commit-"+rmActor(r), "Commit")
	case KindRMRcvAbortMsg:
		buf = event(buf, "recv", rmActor(r), "TM", "abort-"+rmActor(r), "Abort")
	case KindRMChooseToAbort:
		buf = event(buf, "local", rmActor(r), "", "", "ChooseToAbort")
	}
	return append(buf, ']')
}

func rmActor(r int) string { return "rm" + strconv.Itoa(r+1) }

// event appends one event object; every field is a plain identifier, so none needs escaping.
func event(buf []byte, typ, actor, peer, msg, label string) []byte {
	buf = append(buf, `{"type":"`...)
	buf = append(buf, typ...)
	buf = append(buf, `","actor":"`...)
	buf = append(buf, actor...)
	buf = append(buf, `","peer":"`...)
	buf = append(buf, peer...)
	buf = append(buf, `","msg":"`...)
	buf = append(buf, msg...)
	buf = append(buf, `","label":"`...)
	buf = append(buf, label...)
	return append(buf, `"}`...)
}
