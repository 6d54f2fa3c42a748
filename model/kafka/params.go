package kafka

// kindParams names the arguments each kind of action prints (ActionName), in order, for
// readers of a trace: BrokerPowerLoss(broker=2, recoverFrom=2, leo=2, checkpointEntries=1)
// rather than BrokerPowerLoss(2,2,2,1). KindDocs documents the same arguments in short
// (TestKindParamsMatchDocs holds the two together). A kind with the control plane's
// incarnation argument has a second list, used when the action prints two arguments.
var kindParams = map[string][][]string{
	"LeaderAppend":                       {{"leader"}},
	"FollowerSendFetch":                  {{"follower"}},
	"LeaderHandleFetch":                  {{"leader", "follower"}},
	"NetworkReadRecord":                  {{"leader", "follower"}},
	"FollowerHandleFetchResponse":        {{"follower"}},
	"FollowerSendEpochRequest":           {{"follower"}},
	"LeaderHandleEpochRequest":           {{"leader", "follower"}},
	"FollowerHandleEpochResponse":        {{"follower"}},
	"BrokerHandleLeaderAndIsr":           {{"broker"}},
	"LeaderShrinkISR":                    {{"leader", "follower"}},
	"ControllerHandleAlterPartition":     {{"leader"}, {"controller", "leader"}},
	"LeaderHandleAlterPartitionResponse": {{"leader"}},
	"ControllerHandleBrokerFailure":      {{"broker"}, {"controller", "broker"}},
	"ControllerHandleBrokerStartup":      {{"broker"}, {"controller", "broker"}},
	"ControllerMoveLeader":               {{"newLeader"}},
	"BrokerCrash":                        {{"broker"}},
	"BrokerUncleanCrash":                 {{"broker", "recoverFrom", "checkpointEntries"}},
	"BrokerRestart":                      {{"broker"}},
	"NetworkLoseMessage":                 {{"broker"}},
	"ControllerFailover":                 {{"controller"}},
	"ControllerResign":                   {{"controller"}},
	"BrokerReregister":                   {{"broker"}},
	"BrokerLearnController":              {{"broker"}},
	"BrokerSendAlterPartition":           {{"leader"}},
	"BrokerSessionLoss":                  {{"broker"}},
	"BrokerPowerLoss":                    {{"broker", "recoverFrom", "leo", "checkpointEntries"}},
	"ControllerHandleIsrChange":          {{"controller"}},
	"BrokerControlledShutdown":           {{"broker"}},
	"ControllerElectPreferred":           {{"broker"}},
	"NetworkLoseControlMessage":          {{"broker", "lostResponse"}},
	"ControllerElect":                    {{"broker"}},
	"NetworkReadGarbage":                 {{"leader", "follower"}},
	"ControllerRegisterBroker":           {{"broker"}},
	"BrokerReplayMetadata":               {{"broker"}},
	"ControllerUnfenceBroker":            {{"broker"}},
	"ControllerFenceBroker":              {{"broker"}},
	"ControllerQuorumFailover":           {{"quorumEpoch"}},
	"ControllerRenounce":                 {{"quorumEpoch"}},
	"BrokerBeginShutdown":                {{"broker"}},
	"BrokerStop":                         {{"broker"}},
	"ControllerGrantShutdown":            {{"broker"}},
}

// ActionParams names the n arguments an action of kind prints (ActionName), or returns
// nil for a kind or a count it does not know. Renderers that find this method on a model
// (traces.ActionParamNamer) print the arguments named.
func (m *Model) ActionParams(kind string, n int) []string {
	for _, names := range kindParams[kind] {
		if len(names) == n {
			return names
		}
	}
	return nil
}
