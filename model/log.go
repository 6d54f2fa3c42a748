package model

// The log and the leader-epoch cache of one replica.
//
// Kafka: LeaderEpochFileCache (storage/src/main/java/org/apache/kafka/storage/internals/
// epoch/LeaderEpochFileCache.java) and UnifiedLog.append / truncateTo
// (core/src/main/scala/kafka/log/UnifiedLog.scala).

// Undefined values of Kafka's OffsetsForLeaderEpoch answers.
const (
	NoEpoch   uint8 = 0    // UNDEFINED_EPOCH (-1 in Kafka)
	NoOffset  uint8 = 0xff // UNDEFINED_EPOCH_OFFSET (-1 in Kafka)
	noneEntry       = -1
)

// latestEpoch is the cache's last epoch, NoEpoch when the cache is empty.
// Kafka: LeaderEpochFileCache.latestEpoch, UnifiedLog.latestEpoch.
func (r *Replica) latestEpoch() uint8 {
	if r.NCache == 0 {
		return NoEpoch
	}
	return r.Cache[r.NCache-1].Epoch
}

// assign records that epoch starts at start.
// Kafka: LeaderEpochFileCache.assign: only if isUpdateNeeded (the epoch differs from the
// latest, or the offset is below the latest start offset); maybeTruncateNonMonotonicEntries
// first removes every tail entry with epoch >= epoch or start >= start.
func (r *Replica) assign(epoch, start uint8) {
	if r.NCache > 0 {
		last := r.Cache[r.NCache-1]
		if epoch == last.Epoch && start >= last.Start {
			return // !isUpdateNeeded
		}
	}
	for r.NCache > 0 {
		e := r.Cache[r.NCache-1]
		if e.Epoch < epoch && e.Start < start {
			break
		}
		r.NCache--
		r.Cache[r.NCache] = EpochEntry{}
	}
	if int(r.NCache) == len(r.Cache) {
		panic("model: leader-epoch cache overflow")
	}
	r.Cache[r.NCache] = EpochEntry{Epoch: epoch, Start: start}
	r.NCache++
}

// truncateFromEnd removes every entry whose start offset is >= end.
// Kafka: LeaderEpochFileCache.truncateFromEndAsyncFlush.
func (r *Replica) truncateFromEnd(end uint8) {
	for r.NCache > 0 && r.Cache[r.NCache-1].Start >= end {
		r.NCache--
		r.Cache[r.NCache] = EpochEntry{}
	}
}

// endOffsetFor answers OffsetsForLeaderEpoch for epoch req on this cache with log end
// offset leo: Kafka's LeaderEpochFileCache.endOffsetFor, case by case:
//  1. req undefined: (undefined, undefined);
//  2. req is the latest cached epoch: (req, LEO);
//  3. no cached epoch above req: (undefined, undefined);
//  4. no cached epoch at or below req: (req, start of the first higher epoch);
//  5. otherwise (largest cached epoch <= req, start of the next higher epoch). An epoch
//     missing from the cache falls here and is answered with an older one (KAFKA-13077).
func (r *Replica) endOffsetFor(req, leo uint8) (uint8, uint8) {
	if req == NoEpoch {
		return NoEpoch, NoOffset
	}
	n := int(r.NCache)
	if n > 0 && r.Cache[n-1].Epoch == req {
		return req, leo
	}
	higher, floor := noneEntry, noneEntry
	for i := 0; i < n; i++ {
		if r.Cache[i].Epoch > req {
			higher = i
			break
		}
		floor = i
	}
	if higher == noneEntry {
		return NoEpoch, NoOffset
	}
	if floor == noneEntry {
		return req, r.Cache[higher].Start
	}
	return r.Cache[floor].Epoch, r.Cache[higher].Start
}

// endOffsetForV0 is the KIP-101 (Kafka 0.11) answer, an end offset only: the LEO for the
// latest epoch; undefined when no cached epoch is above req or req is below the first
// cached epoch; otherwise the start offset of the first epoch above req.
// Kafka 0.11: LeaderEpochFileCache.endOffsetFor (core/.../server/epoch/LeaderEpochFileCache.scala).
func (r *Replica) endOffsetForV0(req, leo uint8) uint8 {
	n := int(r.NCache)
	if n > 0 && r.Cache[n-1].Epoch == req {
		return leo
	}
	if n == 0 || req < r.Cache[0].Epoch {
		return NoOffset
	}
	for i := 0; i < n; i++ {
		if r.Cache[i].Epoch > req {
			return r.Cache[i].Start
		}
	}
	return NoOffset
}

// appendRecord appends e at the log end and assigns its epoch in the cache.
// Kafka: UnifiedLog.append -> maybeAssignEpochStartOffset(batch.partitionLeaderEpoch,
// batch.baseOffset), for leader and follower appends alike.
func (r *Replica) appendRecord(e Entry) {
	if int(r.LEO) == len(r.Log) {
		panic("model: log overflow")
	}
	r.Log[r.LEO] = e
	r.assign(e.Epoch, r.LEO)
	r.LEO++
}

// truncateTo truncates the log to off records. The cache is truncated even when off >= LEO
// (KAFKA-10706), and the high watermark is capped at the new end.
// Kafka: UnifiedLog.truncateTo.
func (r *Replica) truncateTo(off uint8) {
	for r.LEO > off {
		r.LEO--
		r.Log[r.LEO] = Entry{}
	}
	r.truncateFromEnd(off)
	if r.HW > r.LEO {
		r.HW = r.LEO
	}
}

// rebuildCache replaces the cache by one assigned from the batches at offsets from..LEO-1
// on top of keep entries of the old one (the checkpoint as read back).
// Kafka: LogLoader recovery re-assigns epochs only for batches in recovered segments
// (LogSegment.recover); with from = 0 and keep = 0 it is the KAFKA-13077 fix.
func (r *Replica) rebuildCache(keep, from uint8) {
	for r.NCache > keep {
		r.NCache--
		r.Cache[r.NCache] = EpochEntry{}
	}
	r.truncateFromEnd(r.LEO)
	for o := from; o < r.LEO; o++ {
		if r.Log[o].ID != 0 { // not a hole (bytes.go)
			r.assign(r.Log[o].Epoch, o)
		}
	}
}

// CacheMatchesLog reports whether every batch's epoch is the epoch of the cache's floor
// entry for its offset (EpochCacheMatchesLog); holes have no batch.
func (r *Replica) CacheMatchesLog() bool {
	j := -1
	for o := uint8(0); o < r.LEO; o++ {
		for j+1 < int(r.NCache) && r.Cache[j+1].Start <= o {
			j++
		}
		if r.Log[o].ID != 0 && (j < 0 || r.Cache[j].Epoch != r.Log[o].Epoch) {
			return false
		}
	}
	return true
}
