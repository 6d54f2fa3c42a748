/*
 * The phantom epoch (kmc's FINDINGS.md, section 7): a reproduction in the style of Kafka's own
 * UnifiedLogTest, at the log level, against the real jars of a release (Kafka 4.1 and 4.2's
 * record packages; from 4.3 the record classes are in org.apache.kafka.common.record.internal).
 * Run it with:
 *   mvn -f conformance/pom.xml -Dkafka.version=4.1.1 test -Dtest=PhantomEpochTest
 * A follower truncates while its broker shuts down cleanly, after the scheduler stopped and before
 * the fetchers stop (BrokerServer.shutdown); the truncation's leader-epoch checkpoint write is
 * scheduled on the stopped scheduler and ignored, and the restarted log's cache holds an epoch no
 * batch carries. The follower then truncates a record both replicas held. (With ELR, 4.1's
 * default for new clusters, the controller may then elect that follower: FINDINGS.md.)
 */
package org.apache.kafka.storage.internals.log;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class PhantomEpochTest {
    private final List<KafkaScheduler> schedulers = new ArrayList<>();
    private final List<UnifiedLog> logs = new ArrayList<>();
    private final List<File> dirs = new ArrayList<>();
    private final Uuid topicId = Uuid.randomUuid();

    private KafkaScheduler startScheduler() {
        KafkaScheduler s = new KafkaScheduler(1);
        s.startup();
        schedulers.add(s);
        return s;
    }

    private UnifiedLog open(File dir, long recoveryPoint, KafkaScheduler scheduler) throws IOException {
        UnifiedLog log = UnifiedLog.create(dir, new LogConfig(new Properties()), 0L, recoveryPoint, scheduler,
            new BrokerTopicStats(), Time.SYSTEM, 300000, new ProducerStateManagerConfig(86400000, false),
            600000, new LogDirFailureChannel(1), true, Optional.of(topicId));
        logs.add(log);
        return log;
    }

    private File newDir() throws IOException {
        File dir = Files.createTempDirectory("phantom-epoch").resolve("topic-0").toFile();
        dirs.add(dir.getParentFile());
        return dir;
    }

    @AfterEach
    public void tearDown() throws Exception {
        for (UnifiedLog log : logs) {
            try {
                log.close();
            } catch (RuntimeException e) {
                // closed by the test (a broker's shutdown)
            }
        }
        for (KafkaScheduler s : schedulers) s.shutdown();
        for (File dir : dirs) Utils.delete(dir);
    }

    private static MemoryRecords batch(long offset, int epoch, String value) {
        return MemoryRecords.withRecords(offset, Compression.NONE, epoch,
            new SimpleRecord(0L, null, value.getBytes(StandardCharsets.UTF_8)));
    }

    /** The epochs the log's batches carry. */
    private static Set<Integer> batchEpochs(UnifiedLog log) throws IOException {
        Set<Integer> out = new TreeSet<>();
        FetchDataInfo all = log.read(0, Integer.MAX_VALUE, FetchIsolation.LOG_END, true);
        for (RecordBatch b : all.records.batches()) out.add(b.partitionLeaderEpoch());
        return out;
    }

    /**
     * AbstractFetcherThread.getOffsetTruncationState for a follower whose leader answered its
     * OffsetsForLeaderEpoch (or fetch's lastFetchedEpoch) with {@code leader}: the offset it
     * truncates to when the answer's epoch is one the follower knows.
     */
    private static long truncationOffset(UnifiedLog follower, OffsetAndEpoch leader) {
        OffsetAndEpoch own = follower.endOffsetForEpoch(leader.epoch()).orElseThrow();
        assertEquals(leader.epoch(), own.epoch(), "the follower knows the leader's epoch");
        return Math.min(Math.min(own.offset(), leader.offset()), follower.logEndOffset());
    }

    @Test
    public void testTruncationDuringCleanShutdownDoesNotTruncateAcknowledgedRecordLater() throws Exception {
        KafkaScheduler scheduler1 = startScheduler();
        KafkaScheduler scheduler2 = startScheduler();
        UnifiedLog broker1 = open(newDir(), 0L, scheduler1); // leads epoch 1, then epoch 3
        File dir2 = newDir();
        UnifiedLog broker2 = open(dir2, 0L, scheduler2);     // fetches r1; leads epoch 2 without writing

        // Epoch 1: broker 1 appends r1 and r2; broker 2 fetches r1.
        broker1.appendAsLeader(batch(0, 1, "r1"), 1);
        broker1.appendAsLeader(batch(0, 1, "r2"), 1);
        broker2.appendAsFollower(batch(0, 1, "r1"), 1);
        // Epoch 2: broker 2 leads (Partition.makeLeader assigns 2 at its log end, written at once);
        // epoch 3: broker 1 leads again before broker 2 wrote anything.
        broker2.assignEpochStartOffset(2, 1);
        broker1.assignEpochStartOffset(3, 2);

        // Broker 2 shuts down cleanly: BrokerServer.shutdown stops the scheduler before the fetchers.
        scheduler2.shutdown();
        // Its fetcher still runs: lastFetchedEpoch 2, and broker 1 answers the diverging epoch
        // (epoch 1 ends at 2). Broker 2 truncates to min(its own end of epoch 1 = 1, 2) = 1: the
        // log keeps r1, the cache drops 2@1, and the checkpoint write is scheduled on the stopped
        // scheduler ("The task is ignored").
        OffsetAndEpoch answer = broker1.endOffsetForEpoch(2).orElseThrow();
        assertEquals(new OffsetAndEpoch(2, 1), answer);
        broker2.truncateTo(truncationOffset(broker2, answer));
        // It fetches r2 at epoch 1: no new epoch, nothing written to the checkpoint.
        broker2.appendAsFollower(batch(1, 1, "r2"), 3);
        assertEquals(Set.of(1), batchEpochs(broker2));
        // Both replicas hold r1 and r2: with min.insync.replicas = 2 the leader's high watermark
        // passes r2, which is acknowledged (acks=all).
        assertEquals(2L, broker1.logEndOffset());
        assertEquals(2L, broker2.logEndOffset());

        // The fetchers stop; the log closes (UnifiedLog.close writes no checkpoint) and the clean
        // shutdown is recorded; the restart loads it (LogLoader, clean: no recovery).
        broker2.close();
        broker2 = open(dir2, 2L, startScheduler());

        // The restarted follower asks broker 1 with its latest epoch; broker 1 answers as before.
        int lastFetchedEpoch = broker2.latestEpoch().orElse(-1);
        Set<Integer> carried = batchEpochs(broker2);
        long to = lastFetchedEpoch == 1 ? broker2.logEndOffset()
            : truncationOffset(broker2, broker1.endOffsetForEpoch(lastFetchedEpoch).orElseThrow());
        assertTrue(to >= 2,
            "the restarted broker 2's leader-epoch cache has latest epoch " + lastFetchedEpoch + " (" + broker2.leaderEpochCache().epochEntries()
                + ") though its batches carry only epochs " + carried + "; answered by broker 1, it truncates to " + to
                + ", below r2, which both replicas held and the leader acknowledged");
    }
}
