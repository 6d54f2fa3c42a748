package kafka

// Byte positions: how Kafka reads a fetch response's records, and what a follower makes of
// the bytes it gets (KAFKA-18723 and its residual, FINDINGS.md).
//
// Kafka reads a fetch by file position. LogSegment.read maps the fetch offset to the byte
// position of the batch holding it (translateOffset) and returns FileRecords.slice(start,
// size): a view of the segment's FileChannel whose start and end are fixed at read time
// (storage/.../log/LogSegment.java, clients/.../record/FileRecords.java). The network
// thread copies the bytes later, in chunks (RecordsSend.writeTo -> FileRecords.writeTo),
// checking only that the file is still at least as long as the slice's end. A truncation
// shrinks the same file in place (FileRecords.truncateTo: channel.truncate) and appends
// write at the new end (FileRecords.append), so after a truncation and appends a slice's
// positions hold the new batches' bytes.
//
// The model gives each record a size in units, a fixed function of its record id
// (Config.RecordSizes), and a batch is one record. A record's position is the sum of the
// sizes of the records before it: one segment, log start offset 0. A hole (an offset a
// follower skipped, see appendFetched) is the zero Entry and has no bytes. With uniform
// sizes every position is a batch boundary and the position of offset o is o, so a read is
// record-aligned, as the model read before sizes existed.
//
// A fetch response's slice is [Msg.Start, Msg.End) in positions; Msg.Recs[0:N] are the
// batches copied so far and Msg.Offs[0:N] their base offsets (the offsets the bytes carry,
// which need not be the fetch offset and its successors); the read cursor is Start plus
// their sizes.

// Record sizes, the values of Config.RecordSizes.
const (
	// SizesUniform: every record is 1 unit. Kafka: one-record batches of equal size (a
	// one-record v2 batch with no key and a 100-byte value is 170 bytes, whatever its
	// offset, epoch and timestamp).
	SizesUniform = iota
	// SizesVaried: record n is 1 unit when n is odd, 2 when n is even.
	SizesVaried
	// SizesDistinct: record n is n units, so no two records have the same size.
	SizesDistinct
)

// RecordSizeNames are the names of the record sizes, indexed by their values.
var RecordSizeNames = []string{"uniform", "varied", "distinct"}

// recordSize is the size in units of record id; a hole (id 0) has none.
func (m *Model) recordSize(id uint8) uint8 {
	switch {
	case id == 0:
		return 0
	case m.C.RecordSizes == SizesVaried:
		return 2 - id&1
	case m.C.RecordSizes == SizesDistinct:
		return id
	}
	return 1
}

// position is the byte position of offset off in r's log (off <= LEO): the sizes of the
// records before it. For a hole it is the position of the next batch.
func (m *Model) position(r *Replica, off uint8) uint8 {
	var p uint8
	for o := uint8(0); o < off; o++ {
		p += m.recordSize(r.Log[o].ID)
	}
	return p
}

// batchAt is the offset of the batch of r's log that starts at position p, or -1 when p
// falls inside a batch or at the end of the log.
func (m *Model) batchAt(r *Replica, p uint8) int {
	var q uint8
	for o := uint8(0); o < r.LEO; o++ {
		id := r.Log[o].ID
		if id == 0 {
			continue // a hole: the next batch starts here
		}
		if q == p {
			return int(o)
		}
		if q += m.recordSize(id); q > p {
			return -1
		}
	}
	return -1
}

// slice is the byte range [start, end) of srv's log that the leader fixes for a fetch from
// offset off <= LEO.
// Kafka: LocalLog.read -> LogSegment.read: startPosition = translateOffset(off), the batch
// holding off (the first batch at or after it); maxPosition = the log end's position (a
// follower reads up to the log end, FetchIsolation.LOG_END); with minOneMessage
// adjustedMaxSize = max(maxSize, the first batch's size); fetchSize = min(maxPosition -
// startPosition, adjustedMaxSize); FileRecords.slice(startPosition, fetchSize). maxSize is
// max_fetch_records units. The slice may end inside a batch.
func (m *Model) slice(srv *Replica, off uint8) (start, end uint8) {
	start = m.position(srv, off)
	size := uint8(m.C.MaxFetchRecords)
	if o := m.batchAt(srv, start); o >= 0 {
		size = max(size, m.recordSize(srv.Log[o].ID))
	}
	return start, min(m.position(srv, srv.LEO), start+size)
}

// cursor is the read position of fetch response g: its slice's start plus the sizes of the
// batches copied so far.
func (m *Model) cursor(g *Msg) uint8 {
	p := g.Start
	for k := uint8(0); k < g.N; k++ {
		p += m.recordSize(g.Recs[k].ID)
	}
	return p
}

// readDone reports whether every byte of fetch response g's slice has been read: the
// response can be delivered.
func (m *Model) readDone(g *Msg) bool { return m.cursor(g) >= g.End }

// What the network thread finds at the read cursor of a fetch response (readAt).
const (
	// readShort: the server's file is shorter than the slice's end. Kafka:
	// FileRecords.writeTo throws KafkaException("Size of FileRecords ... has been truncated
	// during write") on the sender; Selector.pollSelectionKeys closes the connection; the
	// follower sees a disconnect and retries after a backoff (AbstractFetcherThread.
	// processFetchRequest: partitionsWithError), with no state change.
	readShort = iota
	// readBatch: a batch starts at the cursor and ends within the slice: its bytes are
	// copied whole (its CRC is valid).
	readBatch
	// readPartial: a batch starts at the cursor and ends past the slice's end. The
	// follower's batch iterator stops at a partial batch and drops it silently
	// (ByteBufferLogInputStream.nextBatch returns null; UnifiedLog.trimInvalidBytes): the
	// response ends at the cursor.
	readPartial
	// readGarbage: the cursor falls inside a batch; the bytes there are no batch header.
	// The follower's iterator (ByteBufferLogInputStream.nextBatchSize) reads a garbage
	// length and magic: a length below the minimum overhead (14), a bad magic, or a batch
	// whose CRC then fails throws CorruptRecordException, and the follower retries with no
	// state change (processFetchRequest: "If the message is corrupt due to a transient
	// state in the log (truncation, partial writes can cause this), we simply continue");
	// a plausible length past the response's end with a byte that passes as magic (0..2)
	// makes it stop there, as at a partial batch (NetworkReadGarbage), and so does, after
	// PR 18852, a garbage header whose epoch field is above the request's (skipped, with
	// every batch after it).
	readGarbage
)

// readAt is what the network thread finds at the cursor of fetch response g on server srv
// now, and for readBatch the batch's offset. The check of the file's size against the
// slice's end comes first, as FileRecords.writeTo makes it before every chunk it sends.
// The model sends a batch per chunk; a chunk boundary inside a batch whose bytes changed
// between the two chunks tears it, a CRC failure that only makes the follower retry, like
// the readGarbage and readShort outcomes, and it is not modelled apart.
func (m *Model) readAt(srv *Replica, g *Msg) (int, uint8) {
	if m.position(srv, srv.LEO) < g.End {
		return readShort, 0
	}
	p := m.cursor(g)
	o := m.batchAt(srv, p)
	switch {
	case o < 0:
		return readGarbage, 0
	case p+m.recordSize(srv.Log[o].ID) > g.End:
		return readPartial, 0
	}
	return readBatch, uint8(o)
}

// lastBatchEpoch is the leader epoch of the last batch of r's log (holes skipped), NoEpoch
// when the log has none.
func (r *Replica) lastBatchEpoch() uint8 {
	for o := int(r.LEO) - 1; o >= 0; o-- {
		if r.Log[o].ID != 0 {
			return r.Log[o].Epoch
		}
	}
	return NoEpoch
}

// appendAt appends e as the batch at offset off >= LEO; the offsets from the log end to
// off are left as holes. Kafka: a follower's append takes the offsets it is given
// (UnifiedLog.appendAsFollower, validateAndAssignOffsets = false) and only rejects a first
// offset below the log end (UnexpectedAppendOffsetException); the log end offset becomes
// the last offset + 1. Holes are legal in a Kafka log (compaction leaves them).
func (r *Replica) appendAt(off uint8, e Entry) {
	r.LEO = max(r.LEO, off)
	r.appendRecord(e)
}

// appendFetched appends the batches of the complete FetchResponse resp on follower r and
// takes the high watermark from it.
// Kafka: ReplicaFetcherThread.processPartitionData -> Partition.
// appendRecordsToFollowerOrFutureReplica -> UnifiedLog.appendAsFollower:
//   - analyzeAndValidateRecords: skipRemainingBatches from the first batch a switch in force
//     stops (Switch.StopAppend: KAFKA-18723's filter, switch_kafka18723.go, and the strict
//     proposal, switch_kafka18723_strict.go);
//     the kept batches' offsets must increase, else OffsetsOutOfOrderException;
//   - append: a first offset below the log end offset throws UnexpectedAppendOffsetException.
//     Both are RuntimeExceptions, which processFetchRequest answers with
//     markPartitionFailed: nothing is appended, the high watermark is not taken, and the
//     partition waits for the next LeaderAndIsr (FetchFailed). (Partition.
//     appendRecordsToFollowerOrFutureReplica recovers only when the log is empty at its
//     start offset and the batch spans it: with log start offset 0 that cannot be.)
//   - a first offset above the log end offset is appended with a hole (appendAt);
//   - lastFetchedEpoch from the last appended batch (logAppendInfo.lastLeaderEpoch, unchanged
//     when none, KAFKA-15510); HW = min(leader's HW, LEO) (UnifiedLog.maybeUpdateHighWatermark).
func (m *Model) appendFetched(r *Replica, resp *Msg) {
	n, last := resp.N, r.lastBatchEpoch()
	for k := uint8(0); k < resp.N; k++ {
		e := resp.Recs[k].Epoch
		if len(m.hooks.stop) > 0 && m.stopAppend(r, resp, int(k), e, last) {
			n = k // skipRemainingBatches
			break
		}
		last = e
	}
	next := r.LEO
	for k := uint8(0); k < n; k++ {
		if resp.Offs[k] < next {
			r.Fetch = FetchFailed
			return
		}
		next = resp.Offs[k] + 1
	}
	for k := uint8(0); k < n; k++ {
		r.appendAt(resp.Offs[k], resp.Recs[k])
		r.LastEp = resp.Recs[k].Epoch
	}
	r.HW = min(resp.HW, r.LEO)
}

// abortCutSends drops every fetch response in flight in t whose slice's unsent part its
// server's truncation cut: the send-side fix (proposal (a) of FINDINGS.md), with
// switch Kafka18723SendSide. The serving broker's FileRecords.truncateTo marks the slices
// of that file whose end it cut, and writeTo, atomically with the truncation, throws for
// such a slice, as it does today for a file shorter than the slice: the connection is
// closed and the follower retries. The model drops the response at the truncation rather
// than at its next read: the follower can do nothing with it in between. It is applied to
// every successor: the file can only shrink below a slice's end by a truncation (a crash
// closes the connections).
func (m *Model) abortCutSends(t *State) {
	for i := 0; i < int(t.Net.Len); {
		g := &t.Net.Msgs[i]
		if g.Kind == MsgFetchResponse && g.Err == ErrNone && g.DivE == NoEpoch && !m.readDone(g) {
			if srv := &t.B[g.From]; m.position(srv, srv.LEO) < g.End {
				t.Net.remove(i)
				m.hit(Kafka18723SendSide.Branch(0))
				continue
			}
		}
		i++
	}
}
