package twophase

// The model's named guards (kmc mutate): the conditions of TwoPhase.tla's actions that
// keep the protocol safe. A mutation turns one off (Model.Mutate): the action is then
// enabled where the condition would have disabled it. Each is read only where its
// condition is false.

// Guard is the index of a named guard in Guards.
type Guard uint8

// The guards, in Guards order.
const (
	// GuardCommitAllPrepared is TMCommit's tmPrepared = RM: the guard whose absence is the
	// planted bug (EarlyCommit, the switch CommitAfterAllPrepared off).
	GuardCommitAllPrepared Guard = iota
	// GuardAbortInit is TMAbort's tmState = "init": the TM aborts only before deciding.
	GuardAbortInit
	NumGuards
)

// GuardInfo names a guard: Doc says what it refuses, TLA the action and conjunct.
type GuardInfo struct{ Name, Doc, TLA string }

// Guards is the table of the model's guards, indexed by Guard.
var Guards = [NumGuards]GuardInfo{
	GuardCommitAllPrepared: {"CommitAllPrepared",
		"the TM commits only once every RM has prepared (the planted bug without it)",
		"TwoPhase.tla TMCommit: tmPrepared = RM"},
	GuardAbortInit: {"AbortInit",
		"the TM aborts only while it has not decided (an abort after a commit)",
		"TwoPhase.tla TMAbort: tmState = \"init\""},
}

// GuardBit is the bit of Model.Mutate that turns guard g off.
func GuardBit(g Guard) uint32 { return 1 << g }

func (m *Model) off(g Guard) bool { return m.Mutate&(1<<g) != 0 }
