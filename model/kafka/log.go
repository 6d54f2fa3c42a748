package kafka

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
	// The change is written to the checkpoint file at once (LeaderEpochFileCache.assign ->
	// writeToFile, fsync and atomic rename), which drops entries an unflushed truncation left.
	r.clearStale()
}

// truncateFromEnd removes every entry whose start offset is >= end. With async (Kafka 3.8
// and later, KAFKA-16541) the checkpoint file is rewritten by a scheduled task, so until an
// assignment rewrites it the file still holds the removed entries (Stale); before 3.8 the
// write was synchronous.
// Kafka: LeaderEpochFileCache.truncateFromEndAsyncFlush (3.8: scheduler.scheduleOnce of
// writeIfDirExists), truncateFromEnd before it.
func (r *Replica) truncateFromEnd(end uint8, async bool) {
	n := r.NCache
	for n > 0 && r.Cache[n-1].Start >= end {
		n--
	}
	if n == r.NCache {
		return
	}
	if async {
		// The file is the old cache followed by the older stale entries: prepend.
		k := r.NCache - n
		if int(k+r.NStale) > len(r.Stale) {
			panic("model: leader-epoch checkpoint overflow")
		}
		copy(r.Stale[k:], r.Stale[:r.NStale])
		copy(r.Stale[:k], r.Cache[n:r.NCache])
		cut := r.StaleCut << k
		if r.NStale > 0 {
			cut |= 1 << k // the cache before this truncation, which an earlier write may hold
		}
		r.StaleCut = cut
		r.NStale += k
	}
	for r.NCache > n {
		r.NCache--
		r.Cache[r.NCache] = EpochEntry{}
	}
}

// clearStale forgets the stale entries: the file is the cache again.
func (r *Replica) clearStale() {
	r.Stale, r.NStale, r.StaleCut = [MaxEpoch]EpochEntry{}, 0, 0
}

// fileCanHold reports whether a crash can find the checkpoint file with its first j
// entries, NCache <= j <= NCache+NStale. A pending write writes the whole cache of the
// moment it runs (LeaderEpochFileCache.truncateFromEndAsyncFlush schedules
// writeIfDirExists; 3.9.1 storage/.../epoch/LeaderEpochFileCache.java), so the file is the
// cache before the first pending truncation (no write ran: j = NCache+NStale), or the cache
// after one of them: the cache now (j = NCache) or a cut an earlier truncation left
// (StaleCut). Once the scheduler has stopped (ShutClosing), which runs the writes queued
// before it stopped and drops the rest (KafkaScheduler.shutdown), no pending write runs.
func (r *Replica) fileCanHold(j uint8) bool {
	i := j - r.NCache
	switch {
	case i == r.NStale:
		return true
	case r.Shut == ShutClosing:
		return false
	case i == 0:
		return true
	}
	return r.StaleCut&(1<<i) != 0
}

// checkpointFile returns the first j entries of the leader-epoch checkpoint file, the cache
// followed by the stale entries (j <= NCache+NStale). With NCache <= j it is the file as it
// is on disk when a scheduled write left it so (fileCanHold says which j a crash can find).
// A smaller j is an earlier version of the file (before Kafka 3.0, a power loss may undo
// the rename of its latest writes).
func (r *Replica) checkpointFile(j uint8) ([MaxEpoch]EpochEntry, uint8) {
	var f [MaxEpoch]EpochEntry
	n := copy(f[:j], r.Cache[:r.NCache])
	copy(f[n:j], r.Stale[:r.NStale])
	return f, j
}

// load replaces the cache by the checkpoint file f of n entries, as LeaderEpochFileCache's
// constructor does (checkpoint.read().forEach(this::assign)); the file is then the cache.
func (r *Replica) load(f [MaxEpoch]EpochEntry, n uint8) {
	r.Cache, r.NCache = f, n
	r.clearStale()
}

// recover is the leader-epoch part of log recovery after an unclean shutdown, from offset
// from (the base offset of the segment holding the recovery point): each batch whose epoch
// is above the cache's latest epoch assigns it; then the cache is truncated at the log end.
// Kafka: LogLoader.recoverLog -> LogSegment.recover (assign only when
// batch.partitionLeaderEpoch > cache.latestEpoch), then
// leaderEpochCache.truncateFromEndAsyncFlush(nextOffset) (LogLoader.load).
func (r *Replica) recover(from uint8, async bool) {
	for o := from; o < r.LEO; o++ {
		if e := r.Log[o].Epoch; e > r.latestEpoch() {
			r.assign(e, o)
		}
	}
	r.truncateFromEnd(r.LEO, async)
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
// (KAFKA-10706), with async as for truncateFromEnd, and the high watermark is capped at the
// new end.
// Kafka: UnifiedLog.truncateTo.
func (r *Replica) truncateTo(off uint8, async bool) {
	for r.LEO > off {
		r.LEO--
		r.Log[r.LEO] = Entry{}
	}
	r.truncateFromEnd(off, async)
	if r.HW > r.LEO {
		r.HW = r.LEO
	}
}

// rebuildCache replaces the cache by one assigned from every batch of the log, in order:
// the proposed KAFKA-13077 repair (no upstream fix exists), which a new leader runs.
// A hole (bytes.go) has no batch.
func (r *Replica) rebuildCache() {
	r.NCache, r.Cache = 0, [MaxEpoch]EpochEntry{}
	for o := uint8(0); o < r.LEO; o++ {
		if r.Log[o].ID != 0 {
			r.assign(r.Log[o].Epoch, o)
		}
	}
	r.clearStale() // the repair rewrites the file
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

// AnswersLogEpochs reports whether, for every epoch E carried by a batch in the log,
// endOffsetFor(E) answers with E itself and not with an older epoch (NoMissingEpoch): the
// negation is the KAFKA-13077 precondition.
func (r *Replica) AnswersLogEpochs() bool {
	for o := uint8(0); o < r.LEO; o++ {
		e := r.Log[o].Epoch
		if o > 0 && r.Log[o-1].Epoch == e {
			continue
		}
		if got, _ := r.endOffsetFor(e, r.LEO); got != NoEpoch && got < e {
			return false
		}
	}
	return true
}

// PhantomEpoch returns the first entry of the leader-epoch cache whose epoch no batch of the
// log carries although batches follow its start offset (ok false: none). A new leader's
// entry at its log end (KAFKA-7415) has no batch yet and is no phantom; appends and
// truncations keep every other entry's epoch on a batch (assign is called per appended
// batch, truncateFromEnd drops the entries past the end), so a phantom comes only from a
// checkpoint file that kept entries a truncation removed, loaded at a restart (KAFKA-16541:
// the scheduled write of the truncation was lost; before 3.0 also an older file after a
// power loss).
func (r *Replica) PhantomEpoch() (EpochEntry, bool) {
	for i := uint8(0); i < r.NCache; i++ {
		e := r.Cache[i]
		if e.Start >= r.LEO {
			continue
		}
		found := false
		for o := uint8(0); o < r.LEO && !found; o++ {
			found = r.Log[o].ID != 0 && r.Log[o].Epoch == e.Epoch
		}
		if !found {
			return e, true
		}
	}
	return EpochEntry{}, false
}

// EndOffsetFor is the replica's answer to an OffsetsForLeaderEpoch request for epoch req
// (endOffsetFor over its own log end offset), for the properties' explanations.
func (r *Replica) EndOffsetFor(req uint8) (epoch, end uint8) { return r.endOffsetFor(req, r.LEO) }
