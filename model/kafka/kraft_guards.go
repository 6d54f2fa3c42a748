package kafka

// kraftGuardIn says, for guard g, whether the KRaft control plane decides its code path
// (ok), and why it has none ("" when it has one): a KRaft guard needs control_plane = kraft
// (and what its mechanism needs); with KRaft, the ZooKeeper plane's and the single
// controller's guards have no code path (kraft.go has its own: KRaftAlterPartition*,
// KRaftReplayPartitionEpoch).
func (c *Config) kraftGuardIn(g Guard, p *Profile) (why string, ok bool) {
	if g >= GuardKRaftAlterPartitionLeaderEpoch {
		switch {
		case !c.KRaft:
			return "needs control_plane = kraft", true
		case g == GuardKRaftAlterPartitionBrokerEpoch && !p.KIP903:
			return "needs KIP-903 (3.5)", true
		case g == GuardKRaftRegisterIncarnation && p.CleanShutdownDetection:
			return "has no code path from 4.0.0 (a registration waits for the old session's expiry, which the model does not time, not for the fencing)", true
		case (g == GuardKRaftELRActive || g == GuardKRaftELRUncleanShutdown) && c.effective(p)&FixBitELR == 0:
			return "needs KIP-966 (eligible leader replicas)", true
		}
		return "", true
	}
	if !c.KRaft {
		return "", false
	}
	switch g {
	case GuardLeaderAndIsrEpoch, GuardAlterPartitionLeaderEpoch, GuardAlterPartitionPartitionEpoch,
		GuardAlterPartitionBrokerEpoch, GuardStaleControllerEpoch, GuardZkVersion, GuardLeaderAndIsrBrokerEpoch:
		return "has no code path with control_plane = kraft", true
	}
	return "", false
}
