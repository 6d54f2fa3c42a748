package twophase

import (
	"fmt"
	"strings"
)

// rmLabel is resource manager r as the trace prints it.
func rmLabel(r int) string { return fmt.Sprintf("rm%d", r+1) }

// rmsIn lists the resource managers in state st.
func rmsIn(s *State, st RMState, n int) string {
	var names []string
	for r := 0; r < n; r++ {
		if s.RM.Of(r) == st {
			names = append(names, rmLabel(r))
		}
	}
	return strings.Join(names, ", ")
}

// ExplainTCConsistent names the committed and the aborted resource managers.
func (m *Model) ExplainTCConsistent(s *State) string {
	return fmt.Sprintf("%s committed while %s aborted", rmsIn(s, Committed, m.N), rmsIn(s, Aborted, m.N))
}

// ExplainTCTypeOK names the first variable out of its type.
func (m *Model) ExplainTCTypeOK(s *State) string {
	for r := m.N; r < MaxRM; r++ {
		if st := s.RM.Of(r); st != Working {
			return fmt.Sprintf("rmState[%s] = %s, but there are only %d RMs", rmLabel(r), st, m.N)
		}
	}
	return fmt.Sprintf("tmState = %d, tmPrepared = %b or the prepared messages %b are out of their types", s.TM, s.TMPrepared, s.MsgPrepared)
}

// ExplainNotAllCommitted says that every resource manager has committed.
func (m *Model) ExplainNotAllCommitted(s *State) string {
	return fmt.Sprintf("all %d resource managers have committed", m.N)
}
