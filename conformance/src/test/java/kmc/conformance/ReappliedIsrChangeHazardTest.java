/*
 * A Kafka hazard under KRaft, reproduced on the real classes of a release with a mock clock. The
 * tests PASS when the hazard is present: they assert that acknowledged records are lost.
 *
 * A leader learns the partition epoch of its own ISR change from the AlterPartition response,
 * before its metadata replay delivers the change's PartitionChangeRecord. If it sends another
 * ISR change in between (an expansion: pending, the high watermark counts the joiner), the
 * replayed record, at the partition epoch the leader already has, is applied again by
 * Partition.makeLeader and resets the partition state to the record's committed ISR: the
 * pending expansion is forgotten, the high watermark passes the joiner, the controller then
 * admits the joiner (the expansion was sent and is accepted), and when the joiner is elected the
 * records below the old high watermark that it lacks are lost. The first change is the leader's
 * shrink of the joiner (metadata version 3.6-IV0 and later, where a shrink keeps the leader
 * epoch) or an expansion of another replica (any metadata version).
 *
 * Run it with:
 *   mvn -o -q -f conformance/pom.xml -Dkafka.version=4.1.1 test -Dtest=ReappliedIsrChangeHazardTest
 *
 * Kafka code (4.1.1, core/src/main/scala/kafka/cluster/Partition.scala): makeLeader skips a
 * partition state only when its partition epoch is LOWER than the leader's (line 743; KAFKA-13790,
 * since 3.3.0) and otherwise applies its ISR with updateAssignmentAndIsr, which sets
 * partitionState = CommittedPartitionState (line 1001), dropping a PendingExpandIsr.
 * maybeIncrementLeaderHW (line 1152) then waits for the joiner only if it is in
 * partitionState.maximalIsr or ReplicaState.isCaughtUp (its last caught-up fetch within
 * replica.lag.time.max.ms, server/.../replica/ReplicaState.java line 62). The expansion's
 * response is ignored (submitAlterPartition's completion, partitionState != proposedIsrState,
 * line 1836), but the controller has accepted it (ReplicationControlManager.alterPartition:
 * leader epoch and partition epoch match). ReplicaManager.applyLocalLeadersDelta calls makeLeader
 * for every record that changes the partition epoch of the broker's image (TopicDelta.localChanges).
 *
 * Everything runs on Kafka's classes: Partition (makeLeader, makeFollower, fetchRecords,
 * maybeShrinkIsr, appendRecordsToLeader, checkEnoughReplicasReachOffset, the AlterPartition
 * callbacks), ReplicaFetcherThread for the followers, UnifiedLog, and a ReplicationControlManager
 * (alterPartition, handleBrokerInControlledShutdown, PartitionChangeBuilder) for the controller,
 * through kmc's conformance harness (Cluster, KRaftController). The test chooses only the order
 * in which messages arrive and how the clock moves.
 */
package kmc.conformance;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class ReappliedIsrChangeHazardTest {
    /** Leader, joiner, follower: the assignment [1, 2, 3] makes the joiner the next leader. */
    private static final int L = 1, J = 2, F = 3;

    /**
     * KIP-966's eligible leader replicas, as a new cluster of the release has them: on from 4.1
     * (EligibleLeaderReplicasVersion.ELRV_1 is the default from metadata version 4.1-IV0). The
     * ISR here never falls below min.insync.replicas, so the ELR stays empty either way.
     */
    private static final boolean ELR = !kafkaVersion().startsWith("3.") && !kafkaVersion().startsWith("4.0");

    /** The controller's metadata version: null for the release's latest production one. */
    private String mv;
    private Path dir;
    private Cluster c;
    /** The controller's registration of the partition (what its ReplicationControlManager holds). */
    private Map<String, Object> reg;
    private final List<String> log = new ArrayList<>();

    @BeforeEach
    public void setUp() throws Exception {
        Events.begin();
        dir = Files.createTempDirectory("kmc-reapplied-isr-change-");
    }

    @AfterEach
    public void tearDown() throws Exception {
        if (c != null) {
            c.close();
        }
        try (Stream<Path> w = Files.walk(dir)) {
            w.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        System.out.println("[" + kafkaVersion() + (mv != null ? ", metadata version " + mv : ELR ? ", ELR" : "") + "] " + getClass().getSimpleName() + ":");
        for (String s : log) {
            System.out.println("  " + s);
        }
    }

    /**
     * Three replicas, min.insync.replicas = 2, acks = all. The metadata replay of the shrink
     * (partition epoch 1) reaches the leader while its expansion is in flight: the re-applied
     * record drops the pending expansion, the high watermark passes the joiner at once (no time
     * passes), two records are acknowledged that the joiner lacks, the controller admits the
     * joiner (partition epoch 2), and when the leader shuts down the joiner is elected: the
     * acknowledged records are gone from the new leader and truncated from the other follower.
     */
    @Test
    public void testReappliedShrinkForgetsPendingExpansionAndLosesAcknowledgedRecords() throws Exception {
        Outcome o = scenario(3, 2, true, 0);
        assertEquals(5L, o.hwAtOnce, "no time passes between the re-applied record and the high watermark's advance");
        // The hazard: the high watermark passed the joiner while the controller was admitting it.
        assertEquals(5L, o.leaderHw, "the old leader's high watermark");
        assertTrue(o.acknowledged, "acks=all: checkEnoughReplicasReachOffset(5) on the old leader");
        assertEquals(List.of(1, 2, 3), o.isrWhenJoinerAdmitted, "the ISR the controller committed at partition epoch 2");
        assertEquals(J, o.newLeader, "the controller elects the joiner");
        assertEquals(3L, o.newLeaderLogEnd, "the joiner's log ends below the old high watermark");
        assertEquals(List.of(1, 2, 3), o.newLeaderIds, "records on the new leader");
        assertEquals(List.of(1, 2, 3), o.followerIdsAfter, "records on the other follower after it truncated to the new leader");
        assertEquals(Set.of(4, 5), o.lost(), "acknowledged records lost");
    }

    /**
     * The control: the same messages, but the shrink's record is replayed after the expansion's
     * response (the order in which Kafka's code is safe). The pending expansion holds the high
     * watermark at the joiner's log end, the response commits the ISR at partition epoch 2, the
     * late record (partition epoch 1 < 2) is skipped, and nothing acknowledged is lost.
     */
    @Test
    public void testShrinkReplayedAfterExpansionResponseLosesNothing() throws Exception {
        Outcome o = scenario(3, 2, false, 0);
        assertEquals(2L, o.leaderHw, "the pending expansion holds the high watermark at the joiner's log end");
        assertFalse(o.acknowledged, "acks=all: records 4 and 5 wait for the joiner");
        assertEquals(List.of(1, 2, 3), o.isrWhenJoinerAdmitted);
        assertEquals(J, o.newLeader);
        assertEquals(Set.of(), o.lost(), "acknowledged records lost");
    }

    /**
     * The model's setting: two replicas, min.insync.replicas = 1. With the leader alone in the
     * ISR its high watermark is its log end, so the joiner reaches the high watermark only by
     * reaching the log end: it is caught up then (ReplicaState.isCaughtUp), and the high watermark
     * waits for it after the re-applied record until replica.lag.time.max.ms has passed since
     * that fetch. Measured: 30,001 ms; then the acknowledged records are lost as with three.
     */
    @Test
    public void testReappliedShrinkLosesAcknowledgedRecordsWithTwoReplicasAfterTheLagTime() throws Exception {
        Outcome o = scenario(2, 1, true, Cluster.LAG_MAX_MS);
        assertEquals(2L, o.hwAtOnce, "right after the re-applied record the caught-up joiner holds the high watermark");
        assertEquals(Cluster.LAG_MAX_MS + 1, o.waitedMs, "ms after the joiner's caught-up fetch until the high watermark passes it");
        assertEquals(7L, o.leaderHw);
        assertTrue(o.acknowledged);
        assertEquals(List.of(1, 2), o.isrWhenJoinerAdmitted);
        assertEquals(J, o.newLeader);
        assertEquals(List.of(1, 2), o.newLeaderIds);
        assertEquals(Set.of(3, 4, 5, 6, 7), o.lost(), "acknowledged records lost");
    }

    /**
     * When the joiner's last fetch reached the leader's log end within replica.lag.time.max.ms,
     * the high watermark waits for it even after the re-applied record (maybeIncrementLeaderHW's
     * shouldWaitForReplicaToJoinIsr, ReplicaState.isCaughtUp): the hazard then needs that much
     * time between the joiner's caught-up fetch and the leader's replay of the expansion's record
     * (which puts the joiner in the committed ISR). Measured: 30,000 ms after the joiner's
     * caught-up fetch the high watermark still waits; 1 ms later it passes the joiner.
     */
    @Test
    public void testRecentlyCaughtUpJoinerHoldsTheHighWatermarkForTheLagTime() throws Exception {
        Outcome o = scenario(3, 2, true, Cluster.LAG_MAX_MS);
        assertEquals(2L, o.hwAtOnce, "right after the re-applied record the caught-up joiner holds the high watermark");
        assertEquals(Cluster.LAG_MAX_MS + 1, o.waitedMs, "ms after the joiner's caught-up fetch until the high watermark passes it");
        assertEquals(7L, o.leaderHw);
        assertTrue(o.acknowledged);
        assertEquals(J, o.newLeader);
        assertEquals(Set.of(3, 4, 5, 6, 7), o.lost(), "acknowledged records lost");
    }

    /**
     * Below metadata version 3.6-IV0 (the latest production version of 3.3, 3.4 and 3.5) the
     * controller bumps the leader epoch on an ISR shrink (4.1.1 PartitionChangeBuilder.
     * triggerLeaderEpochBumpForIsrShrinkIfNeeded, line 386; KAFKA-15021, 3.6.0): the response carries
     * leader epoch 1, which the leader ignores (handleAlterPartitionUpdate: leader epoch differs),
     * so it stays in PendingShrinkIsr (no expansion can be sent) until the replay, which comes at
     * a new leader epoch. The shrink form of the hazard is closed there.
     */
    @Test
    public void testShrinkResponseIgnoredBelowMetadataVersion36() throws Exception {
        mv = "3.5-IV2";
        c = new Cluster(dir.toFile(), 3, 2, 1, "uniform");
        List<Integer> all = List.of(1, 2, 3);
        reg = registration(L, 0, 0, all);
        replayAll(all);
        c.leaderAppend(L, 1);
        for (int b = 2; b <= 3; b++) {
            fetch(b);
            fetch(b);
        }
        c.leaderAppend(L, 2);
        c.clock.advance(Cluster.LAG_MAX_MS + 1);
        fetch(F);
        fetch(F);
        Dyn.call(part(L), "maybeShrinkIsr");
        Map<String, Object> n1 = alterPartition(pending(L));
        assertEquals("NONE", n1.get("error"));
        assertEquals(1, n1.get("leaderEpoch"), "the controller at 3.5-IV2 bumps the leader epoch on a shrink");
        respond(L, n1);
        assertEquals(0, (int) Dyn.call(part(L), "getPartitionEpoch"), "the leader ignores the response");
        assertTrue((boolean) Dyn.call(Dyn.call(part(L), "partitionState"), "isInflight"), "the shrink stays pending");
        fetch(J);
        fetch(J);
        assertEquals(null, c.brokers[L].alter, "no expansion while the shrink is pending");
        log.add("metadata version 3.5-IV2: the shrink commits leader epoch " + n1.get("leaderEpoch") + ", partition epoch "
                + n1.get("partitionEpoch") + "; the leader ignores the response (partition epoch "
                + Dyn.call(part(L), "getPartitionEpoch") + ", shrink in flight) and sends no expansion");
    }

    /**
     * The hazard without a shrink, which metadata version 3.5-IV2 (3.3-3.5's controllers) leaves
     * open too: the leader's own expansion of replica 3 is answered (partition epoch 1), it sends
     * a second expansion for replica 2, and the replay of the first expansion's record, at
     * partition epoch 1, drops the second. Three replicas, min.insync.replicas = 2.
     */
    @Test
    public void testReappliedExpansionLosesAcknowledgedRecordsAtMetadataVersion35() throws Exception {
        mv = "3.5-IV2";
        Outcome o = expansions(true);
        assertEquals(4L, o.leaderHw);
        assertTrue(o.acknowledged);
        assertEquals(List.of(1, 2, 3), o.isrWhenJoinerAdmitted);
        assertEquals(2, o.newLeader);
        assertEquals(Set.of(4), o.lost(), "acknowledged records lost");
    }

    @Test
    public void testReappliedExpansionLosesAcknowledgedRecords() throws Exception {
        Outcome o = expansions(true);
        assertEquals(4L, o.leaderHw);
        assertTrue(o.acknowledged);
        assertEquals(2, o.newLeader);
        assertEquals(Set.of(4), o.lost(), "acknowledged records lost");
    }

    /** The control: the first expansion's record replayed after the second's response. */
    @Test
    public void testExpansionReplayedAfterSecondExpansionResponseLosesNothing() throws Exception {
        Outcome o = expansions(false);
        assertEquals(2L, o.leaderHw);
        assertFalse(o.acknowledged);
        assertEquals(2, o.newLeader);
        assertEquals(Set.of(), o.lost());
    }

    /**
     * Leader 1, ISR [1] at first; replica 3 joins (expansion, answered: partition epoch 1), then
     * replica 2 reaches the high watermark behind the leader's log end and the leader sends the
     * second expansion; reapply: the first expansion's record is replayed at the leader before
     * the second's response.
     */
    private Outcome expansions(boolean reapply) throws Exception {
        final int y = 2, x = 3; // y joins second and is elected; x joins first
        Outcome o = new Outcome();
        c = new Cluster(dir.toFile(), 3, 2, 1, "uniform");
        List<Integer> all = List.of(1, 2, 3);
        reg = registration(L, 0, 0, List.of(L));
        replayAll(all);
        fetch(x); // at offset 0 = the high watermark: the first expansion (acks=all writes wait for it: ISR [1] < 2)
        Map<String, Object> e1 = pending(L);
        assertEquals(List.of(1, 3), e1.get("isr"));
        Map<String, Object> n1 = alterPartition(e1);
        assertEquals("NONE", n1.get("error"));
        assertEquals(0, n1.get("leaderEpoch"), "an expansion never bumps the leader epoch");
        respond(L, n1);
        assertEquals(1, (int) Dyn.call(part(L), "getPartitionEpoch"));
        replay(y);
        replay(x);
        appendRecords(1, 4);
        fetch(x);
        fetch(x);
        fetch(x);
        assertEquals(2L, hw(L));
        fetch(y);
        fetch(y);
        fetch(y); // at offset 2 = the high watermark, behind the log end (4): the second expansion
        Map<String, Object> e2 = pending(L);
        assertEquals(all, e2.get("isr"));
        long joinerEnd = followerEnd(L, y);
        log.add((mv == null ? "" : "metadata version " + mv + ": ") + "expansion of 3 committed at partition epoch 1; expansion of 2 sent: its log end "
                + joinerEnd + ", leader log end " + c.brokers[L].logEnd() + ", high watermark " + hw(L)
                + ", lastCaughtUpTimeMs " + lastCaughtUp(L, y));
        if (reapply) {
            replay(L, n1);
            assertFalse((boolean) Dyn.call(Dyn.call(part(L), "partitionState"), "isInflight"));
        }
        while (c.brokers[x].logEnd() < c.brokers[L].logEnd()) fetch(x);
        fetch(x);
        o.leaderHw = hw(L);
        scala.Tuple2<?, ?> enough = (scala.Tuple2<?, ?>) Dyn.call(part(L), "checkEnoughReplicasReachOffset", 4L);
        o.acknowledged = (boolean) enough._1() && enough._2().toString().equals("NONE");
        o.acknowledgedIds = ids(L, hw(L));
        Map<String, Object> n2 = alterPartition(e2);
        assertEquals("NONE", n2.get("error"));
        o.isrWhenJoinerAdmitted = ints(n2.get("isr"));
        respond(L, n2);
        if (!reapply) replay(L, n1);
        replayAll(all);
        c.shuttingDown.add(L);
        Map<String, Object> n3 = controller("controlledShutdown", L, null);
        o.newLeader = (int) n3.get("leader");
        reg = n3;
        replay(o.newLeader);
        for (int b : all) {
            if (b != o.newLeader) replay(b);
        }
        o.newLeaderIds = ids(o.newLeader, Long.MAX_VALUE);
        o.newLeaderLogEnd = c.brokers[o.newLeader].logEnd();
        fetch(x);
        while (c.brokers[x].logEnd() < o.newLeaderLogEnd) fetch(x);
        o.followerIdsAfter = ids(x, Long.MAX_VALUE);
        log.add((reapply ? "re-applied" : "in order") + ": leader high watermark " + o.leaderHw + ", checkEnoughReplicasReachOffset(4) = " + enough
                + "; second expansion committed: ISR " + n2.get("isr") + " at partition epoch " + n2.get("partitionEpoch")
                + "; controlled shutdown of 1 elects " + o.newLeader + " with records " + o.newLeaderIds + "; replica 3 after fetching from it "
                + o.followerIdsAfter + "; acknowledged " + o.acknowledgedIds + "; lost " + o.lost());
        return o;
    }

    /** What a scenario observed. */
    static final class Outcome {
        long leaderHw;
        boolean acknowledged;
        List<Integer> isrWhenJoinerAdmitted;
        int newLeader;
        long newLeaderLogEnd;
        List<Integer> newLeaderIds;
        List<Integer> followerIdsAfter;
        /** Records below the old leader's high watermark (acknowledged to acks=all producers). */
        List<Integer> acknowledgedIds;
        long waitedMs;
        /** The high watermark right after step 4, with no time passed. */
        long hwAtOnce;
        List<String> hws = new ArrayList<>();

        Set<Integer> lost() {
            Set<Integer> l = new TreeSet<>(acknowledgedIds);
            l.removeAll(newLeaderIds);
            return l;
        }
    }

    /**
     * The interleaving. n: replicas (3: leader 1, joiner 2, follower 3; 2: leader 1, joiner 2);
     * reapply: the leader replays the shrink's record while its expansion is in flight (else after
     * the expansion's response); caughtUp: when positive, the joiner's last fetch before the
     * expansion reaches the leader's log end, and the test measures how long after it the high
     * watermark passes the joiner (the clock moves to caughtUp ms after that fetch, then 1 ms).
     */
    private Outcome scenario(int n, int minIsr, boolean reapply, long caughtUp) throws Exception {
        Outcome o = new Outcome();
        c = new Cluster(dir.toFile(), n, minIsr, 1, "uniform"); // a fetch returns at most one record
        List<Integer> all = new ArrayList<>();
        for (int b = 1; b <= n; b++) all.add(b);
        boolean three = n == 3;

        // The topic is created: leader 1, leader epoch 0, partition epoch 0, ISR all.
        reg = registration(L, 0, 0, all);
        replayAll(all);

        // Record 1 reaches every replica; record 2 reaches the follower only (the joiner stalls).
        c.leaderAppend(L, 1);
        for (int b = 2; b <= n; b++) {
            fetch(b);
            fetch(b);
        }
        assertEquals(1L, hw(L));
        c.leaderAppend(L, 2);
        if (three) {
            fetch(F);
            fetch(F);
        }
        assertEquals(1L, hw(L), "record 2 waits for the stalled joiner");

        // 1. The joiner stalls for longer than replica.lag.time.max.ms; the follower keeps up.
        c.clock.advance(Cluster.LAG_MAX_MS + 1);
        if (three) fetch(F);
        Dyn.call(part(L), "maybeShrinkIsr");
        Map<String, Object> shrink = pending(L);
        assertEquals(without(all, J), shrink.get("isr"), "maybeShrinkIsr proposes the ISR without the joiner");
        // The controller accepts it: PartitionChangeRecord at partition epoch 1 (record N).
        Map<String, Object> n1 = alterPartition(shrink);
        assertEquals("NONE", n1.get("error"));
        assertEquals(1, n1.get("partitionEpoch"));
        respond(L, n1);
        assertEquals(1, (int) Dyn.call(part(L), "getPartitionEpoch"), "the response gives the leader partition epoch 1");
        assertEquals(2L, hw(L), "the shrink committed, the high watermark passes record 2");
        // The followers replay record N; the leader's replay lags (its metadata publisher is behind).
        for (int b = 2; b <= n; b++) replay(b);
        log.add("shrink: ISR " + n1.get("isr") + " at partition epoch 1; leader high watermark " + hw(L));

        // 2. The joiner fetches again, one record a fetch: record 2; then, at offset 2 = the high
        //    watermark, the leader sends the expansion (pending: the maximal ISR has the joiner).
        //    Producers write records 3, 4 and 5 (acks = all) at the leader: before the joiner's
        //    fetches (it stays behind the leader's log end, so its lastCaughtUpTimeMs stays at its
        //    stall), or, in the caughtUp variant, after them (its last fetch reached the log end).
        if (caughtUp == 0) appendRecords(3, 5);
        fetch(J);
        fetch(J);
        if (caughtUp > 0) {
            assertEquals(c.clock.milliseconds(), lastCaughtUp(L, J), "the joiner's fetch at the leader's log end: caught up now");
            appendRecords(3, 5);
        }
        long caughtUpAt = lastCaughtUp(L, J);
        Map<String, Object> expand = pending(L);
        assertEquals(all, expand.get("isr"), "maybeExpandIsr proposes the ISR with the joiner");
        assertEquals(1, expand.get("partitionEpoch"));
        long joinerEnd = followerEnd(L, J);
        log.add("expansion sent: the joiner's log end (the leader's view) " + joinerEnd + ", leader log end " + c.brokers[L].logEnd()
                + ", high watermark " + hw(L) + ", joiner's lastCaughtUpTimeMs " + (c.clock.milliseconds() - caughtUpAt) + " ms ago");

        if (reapply) {
            // 3. The leader's metadata replay delivers record N (partition epoch 1 == its own):
            //    Partition.makeLeader re-applies it; the pending expansion is forgotten.
            replay(L, n1);
            assertFalse((boolean) Dyn.call(Dyn.call(part(L), "partitionState"), "isInflight"),
                    "makeLeader at the same partition epoch resets the pending expansion");
        }

        // 4. The follower fetches records 3-5 (with two replicas the leader alone is the ISR, and
        //    makeLeader itself ran maybeIncrementLeaderHW). No time passes.
        if (three) {
            while (c.brokers[F].logEnd() < c.brokers[L].logEnd()) fetch(F);
            fetch(F);
        }
        o.hwAtOnce = hw(L);
        if (caughtUp > 0) {
            // Time passes until the joiner's last caught-up fetch is caughtUp ms old, then 1 ms
            // more; each time a producer writes a record (6, then 7) and the follower fetches it
            // (maybeIncrementLeaderHW runs on an append and when a follower's log end moves).
            int id = 6;
            for (long d : new long[] {caughtUpAt + caughtUp - c.clock.milliseconds(), 1}) {
                c.clock.advance(d);
                c.leaderAppend(L, id++);
                if (three) {
                    fetch(F);
                    fetch(F);
                }
                o.hws.add(c.clock.milliseconds() - caughtUpAt + " ms: " + hw(L));
                if (hw(L) > joinerEnd) break;
            }
            o.waitedMs = c.clock.milliseconds() - caughtUpAt;
        }
        o.leaderHw = hw(L);
        scala.Tuple2<?, ?> enough = (scala.Tuple2<?, ?>) Dyn.call(part(L), "checkEnoughReplicasReachOffset", 5L);
        o.acknowledged = (boolean) enough._1() && enough._2().toString().equals("NONE");
        o.acknowledgedIds = ids(L, hw(L));
        log.add("after " + (reapply ? "the re-applied shrink" : "the follower's fetches") + ": leader high watermark " + o.hwAtOnce
                + " at once" + (caughtUp > 0 ? ", then " + o.hws + " after the joiner's last caught-up fetch" : "")
                + "; log end " + c.brokers[L].logEnd() + ", ISR " + isr(L) + " (in flight: "
                + Dyn.call(Dyn.call(part(L), "partitionState"), "isInflight") + "), joiner's log end " + joinerEnd
                + ", checkEnoughReplicasReachOffset(5) = " + enough);

        // 5. The controller accepts the expansion: ISR with the joiner at partition epoch 2.
        Map<String, Object> n2 = alterPartition(expand);
        assertEquals("NONE", n2.get("error"));
        assertEquals(2, n2.get("partitionEpoch"));
        o.isrWhenJoinerAdmitted = ints(n2.get("isr"));
        respond(L, n2); // ignored after the re-application (partitionState != proposedIsrState)
        if (!reapply) {
            assertEquals(2, (int) Dyn.call(part(L), "getPartitionEpoch"));
            replay(L, n1); // record N arrives late: partition epoch 1 < 2, skipped
            assertEquals(2, (int) Dyn.call(part(L), "getPartitionEpoch"));
        }
        replayAll(all); // record N+1
        log.add("expansion committed: ISR " + n2.get("isr") + " at partition epoch 2; leader ISR " + isr(L)
                + ", high watermark " + hw(L) + ", joiner log end " + c.brokers[J].logEnd());

        // 6. The leader shuts down (controlled): the controller elects the first ISR replica of the
        //    assignment [1, 2, 3] that is not shutting down: the joiner.
        c.shuttingDown.add(L);
        Map<String, Object> n3 = controller("controlledShutdown", L, null);
        o.newLeader = (int) n3.get("leader");
        reg = n3;
        replay(o.newLeader);
        for (int b = 1; b <= n; b++) {
            if (b != o.newLeader) replay(b);
        }
        o.newLeaderLogEnd = c.brokers[o.newLeader].logEnd();
        o.newLeaderIds = ids(o.newLeader, Long.MAX_VALUE);
        if (three) {
            // The follower fetches from the new leader: diverging epoch, truncation.
            fetch(F);
            while (c.brokers[F].logEnd() < c.brokers[o.newLeader].logEnd()) fetch(F);
            o.followerIdsAfter = ids(F, Long.MAX_VALUE);
        }
        log.add("leader 1 in controlled shutdown: controller elects " + o.newLeader + " (ISR " + n3.get("isr") + ", leader epoch "
                + n3.get("leaderEpoch") + "); new leader's records " + o.newLeaderIds + ", log end " + o.newLeaderLogEnd
                + (three ? "; follower 3's records after fetching from it " + o.followerIdsAfter : "")
                + "; acknowledged (below the old high watermark " + hw(L) + ") " + o.acknowledgedIds + "; lost " + o.lost());
        return o;
    }

    // -------------------------------------------------------------------------------------------
    // The controller (a real ReplicationControlManager per step, seeded with the registration)

    private Map<String, Object> registration(int leader, int leaderEpoch, int partitionEpoch, List<Integer> isr) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("leader", leader);
        m.put("leaderEpoch", leaderEpoch);
        m.put("partitionEpoch", partitionEpoch);
        m.put("isr", new ArrayList<>(isr));
        m.put("elr", List.of());
        m.put("lastKnownElr", List.of());
        return m;
    }

    /** Runs handler on the controller; its resulting registration (and error) is returned. */
    private Map<String, Object> controller(String handler, int broker, Map<String, Object> request) throws Exception {
        Map<String, Object> k = new LinkedHashMap<>();
        k.put("handler", handler);
        k.put("broker", broker);
        k.put("minIsr", c.minIsr);
        k.put("elr", mv == null && ELR);
        if (mv != null) {
            k.put("metadataVersion", mv);
        }
        k.put("unclean", false);
        List<Object> replicas = new ArrayList<>();
        List<Object> brokers = new ArrayList<>();
        for (int b = 1; b <= c.n; b++) {
            replicas.add(b);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", b);
            r.put("epoch", c.brokerEpochs.get(b));
            r.put("fenced", false);
            r.put("shuttingDown", c.shuttingDown.contains(b));
            brokers.add(r);
        }
        k.put("replicas", replicas);
        k.put("brokers", brokers);
        k.put("prior", reg);
        if (request != null) {
            k.put("request", request);
        }
        return KRaftController.run(k);
    }

    /** ReplicationControlManager.alterPartition with the leader's request; the registration moves on when it is accepted. */
    private Map<String, Object> alterPartition(Map<String, Object> request) throws Exception {
        Map<String, Object> out = controller("alterPartition", L, request);
        if ("NONE".equals(out.get("error"))) {
            reg = out;
        }
        return out;
    }

    /** The AlterPartition the leader's Partition submitted (its AlterPartitionManager holds it), as a request. */
    private Map<String, Object> pending(int b) {
        Cluster.Alter a = c.brokers[b].alter;
        assertNotNull(a, "broker " + b + " has an AlterPartition in flight");
        Object lai = a.leaderAndIsr;
        Map<String, Object> req = new LinkedHashMap<>();
        List<Integer> isr = new ArrayList<>();
        Map<String, Object> epochs = new TreeMap<>();
        for (Object bs : Dyn.list(Dyn.call(lai, "isrWithBrokerEpoch"))) {
            int id = (int) Dyn.call(bs, "brokerId");
            isr.add(id);
            epochs.put(Integer.toString(id), (long) Dyn.call(bs, "brokerEpoch"));
        }
        isr.sort(null);
        req.put("isr", isr);
        req.put("epochs", epochs);
        req.put("brokerEpoch", c.brokerEpochs.get(b));
        req.put("leaderEpoch", (int) Dyn.call(lai, "leaderEpoch"));
        req.put("partitionEpoch", (int) Dyn.call(lai, "partitionEpoch"));
        return req;
    }

    /** The controller's answer reaches broker b's AlterPartitionManager (the future completes). */
    private void respond(int b, Map<String, Object> out) {
        c.alterPartitionResponse(b, (String) out.get("error"), (int) out.get("leaderEpoch"), (int) out.get("partitionEpoch"), ints(out.get("isr")));
    }

    /** Broker b's metadata replay of the controller's current registration (ReplicaManager.applyDelta). */
    private void replay(int b) throws Exception {
        c.applyPartitionState(b, (int) reg.get("leader"), (int) reg.get("leaderEpoch"), (int) reg.get("partitionEpoch"),
                ints(reg.get("isr")), c.shuttingDown.contains(b));
    }

    /** Broker b's metadata replay of an earlier registration r (a record that reaches it late). */
    private void replay(int b, Map<String, Object> r) throws Exception {
        c.applyPartitionState(b, (int) r.get("leader"), (int) r.get("leaderEpoch"), (int) r.get("partitionEpoch"),
                ints(r.get("isr")), c.shuttingDown.contains(b));
    }

    private void appendRecords(int from, int to) {
        for (int id = from; id <= to; id++) c.leaderAppend(L, id);
    }

    private void replayAll(List<Integer> brokers) throws Exception {
        for (int b : brokers) replay(b);
    }

    // -------------------------------------------------------------------------------------------
    // Brokers

    /** One fetch of follower f through its ReplicaFetcherThread and the leader's Partition.fetchRecords. */
    private void fetch(int f) throws Exception {
        c.followerSendFetch(f);
        Cluster.Exchange ex = c.exchanges[f];
        assertNotNull(ex, "broker " + f + "'s fetcher sent a fetch");
        c.leaderHandleFetch(ex.leader, f, c.brokerEpochs.get(f));
        if (c.exchanges[f] == null) {
            return; // answered with an error, delivered
        }
        while (!ex.readDone) c.networkRead(ex.leader, f, false);
        c.followerHandleFetchResponse(f);
    }

    private Object part(int b) {
        return c.brokers[b].partition;
    }

    private long hw(int b) {
        return (long) Dyn.call(c.brokers[b].log, "highWatermark");
    }

    private List<Integer> isr(int b) {
        List<Integer> l = new ArrayList<>();
        for (Object x : Dyn.list(Dyn.call(part(b), "inSyncReplicaIds"))) l.add(((Number) x).intValue());
        l.sort(null);
        return l;
    }

    private Object replicaState(int leader, int f) {
        return Dyn.call(Dyn.unopt(Dyn.call(part(leader), "getReplica", f)), "stateSnapshot");
    }

    private long lastCaughtUp(int leader, int f) {
        return (long) Dyn.call(replicaState(leader, f), "lastCaughtUpTimeMs");
    }

    private long followerEnd(int leader, int f) {
        return (long) Dyn.call(replicaState(leader, f), "logEndOffset");
    }

    /** The record ids of broker b's log below offset end. */
    private List<Integer> ids(int b, long end) {
        List<Integer> out = new ArrayList<>();
        for (K.Batch x : K.batches(c.segmentRecords(c.brokers[b]))) {
            if (x.offset() < end) out.add(x.id());
        }
        return out;
    }

    private static List<Integer> without(List<Integer> l, int x) {
        List<Integer> out = new ArrayList<>(l);
        out.remove(Integer.valueOf(x));
        return out;
    }

    private static List<Integer> ints(Object o) {
        List<Integer> out = new ArrayList<>();
        for (Object x : (List<?>) o) out.add(((Number) x).intValue());
        out.sort(null);
        return out;
    }

    /** The release on the classpath (AppInfoParser moved to common.utils.internals in 4.4). */
    private static String kafkaVersion() {
        Class<?> ai = Dyn.clsOrThrow("org.apache.kafka.common.utils.AppInfoParser", "org.apache.kafka.common.utils.internals.AppInfoParser");
        return (String) Dyn.callStatic(ai, "getVersion");
    }
}
