/*
 * KAFKA-18723's residual (kmc's FINDINGS.md): a reproduction in the style of Kafka's own
 * UnifiedLogTest, against the real jars of a release (Kafka 4.1 and 4.2's record packages; from
 * 4.3 the record classes are in org.apache.kafka.common.record.internal). Run it with:
 *   mvn -f conformance/pom.xml -Dkafka.version=4.1.1 test
 * It fails on every release that ships PR 18852 (3.9.1, 4.0.1, 4.1.x and later), as it does on
 * the releases before it: the follower's log and the new leader's differ at an offset that the
 * new leader's divergence check accepts.
 */
package org.apache.kafka.storage.internals.log;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.record.FileRecords;
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

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertTrue;

public class StaleFetchSliceTest {
    private final KafkaScheduler scheduler = new KafkaScheduler(1);
    private final List<UnifiedLog> logs = new ArrayList<>();
    private final List<File> dirs = new ArrayList<>();

    private UnifiedLog createLog() throws IOException {
        File dir = Files.createTempDirectory("stale-slice").resolve("topic-0").toFile();
        dirs.add(dir.getParentFile());
        UnifiedLog log = UnifiedLog.create(dir, new LogConfig(new Properties()), 0L, 0L, scheduler,
            new BrokerTopicStats(), Time.SYSTEM, 300000, new ProducerStateManagerConfig(86400000, false),
            600000, new LogDirFailureChannel(1), true, Optional.of(Uuid.randomUuid()));
        logs.add(log);
        return log;
    }

    @AfterEach
    public void tearDown() throws Exception {
        for (UnifiedLog log : logs) log.close();
        scheduler.shutdown();
        for (File dir : dirs) Utils.delete(dir);
    }

    /** One record per batch; every value has the same size, so every batch has the same size. */
    private static MemoryRecords batch(long offset, int epoch, String value) {
        return MemoryRecords.withRecords(offset, Compression.NONE, epoch,
            new SimpleRecord(0L, null, value.getBytes(StandardCharsets.UTF_8)));
    }

    /** What the network thread sends for a response's records: FileRecords.writeTo, now. */
    private static MemoryRecords send(FileRecords slice) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TransferableChannel channel = new TransferableChannel() {
            public boolean hasPendingWrites() { return false; }
            public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
                ByteBuffer buf = ByteBuffer.allocate((int) count);
                fileChannel.read(buf, position);
                out.write(buf.array(), 0, buf.position());
                return buf.position();
            }
            public long write(ByteBuffer[] srcs, int offset, int length) { throw new UnsupportedOperationException(); }
            public long write(ByteBuffer[] srcs) { throw new UnsupportedOperationException(); }
            public int write(ByteBuffer src) { throw new UnsupportedOperationException(); }
            public boolean isOpen() { return true; }
            public void close() { }
        };
        slice.writeTo(channel, 0, slice.sizeInBytes());
        return MemoryRecords.readableRecords(ByteBuffer.wrap(out.toByteArray()));
    }

    private static List<String> values(UnifiedLog log) throws IOException {
        List<String> out = new ArrayList<>();
        FetchDataInfo all = log.read(0, Integer.MAX_VALUE, FetchIsolation.LOG_END, true);
        for (RecordBatch b : all.records.batches()) {
            for (var r : b) {
                out.add("e" + b.partitionLeaderEpoch() + ":" + StandardCharsets.UTF_8.decode(r.value()));
            }
        }
        return out;
    }

    @Test
    public void testResponseBuiltBeforeTruncationDoesNotLeaveFollowerDiverged() throws IOException {
        UnifiedLog broker1 = createLog(); // leads epoch 1, then epoch 3
        UnifiedLog broker2 = createLog(); // leads epoch 2, then follows broker 1
        UnifiedLog broker3 = createLog(); // follows broker 2 in epoch 2

        // Epoch 1: broker 1 appends X0, X1; nobody fetches them yet.
        broker1.appendAsLeader(batch(0, 1, "r1"), 1);
        broker1.appendAsLeader(batch(0, 1, "r2"), 1);
        // Epoch 2: broker 2 (empty, in the ISR) leads and appends Y0, Y1 at the same positions.
        broker2.assignEpochStartOffset(2, 0);
        broker2.appendAsLeader(batch(0, 2, "r3"), 2);
        broker2.appendAsLeader(batch(0, 2, "r4"), 2);
        // Broker 3 fetches Y0 in epoch 2.
        broker3.appendAsFollower(send((FileRecords) broker2.read(0, 1, FetchIsolation.LOG_END, true).records), 2);
        // Broker 3's next fetch (offset 1, lastFetchedEpoch 2, epoch 2): broker 2 reads [S, 2S) and
        // the response waits in the network thread's queue.
        FileRecords slice = (FileRecords) broker2.read(1, 1, FetchIsolation.LOG_END, true).records;

        // Epoch 3: broker 1 leads again (Partition.makeLeader assigns 3 at its log end). Broker 2
        // follows it: broker 1 answers lastFetchedEpoch 2 with the diverging epoch (1, 2), broker 2
        // truncates to 0 (its own end offset for epoch 1) and fetches X0, X1 into the same positions.
        broker1.assignEpochStartOffset(3, 2);
        broker2.truncateTo(0);
        broker2.appendAsFollower(send((FileRecords) broker1.read(0, Integer.MAX_VALUE, FetchIsolation.LOG_END, true).records), 3);

        // Now the network thread sends the epoch-2 response: its bytes are X1 = (1, e1, r2), a
        // whole batch with a valid CRC, at the fetch offset. PR 18852 filters only batches above
        // the fetch's epoch (2): broker 3 appends it and its latest epoch goes back to 1.
        broker3.appendAsFollower(send(slice), 2);

        // Broker 3 learns epoch 3 and fetches from broker 1 with lastFetchedEpoch = its latest epoch.
        // Broker 1's divergence check (Partition.fetchRecords -> lastOffsetForLeaderEpoch):
        int lastFetchedEpoch = broker3.latestEpoch().orElse(-1);
        OffsetAndEpoch answer = broker1.endOffsetForEpoch(lastFetchedEpoch).orElseThrow();
        boolean diverging = answer.epoch() < lastFetchedEpoch || answer.offset() < broker3.logEndOffset();

        // Either the check sees the divergence, or the two logs hold the same records.
        assertTrue(diverging || values(broker1).equals(values(broker3)),
            "broker 3's log " + values(broker3) + " differs from broker 1's " + values(broker1)
                + ", and broker 1 answers broker 3's lastFetchedEpoch " + lastFetchedEpoch + " with " + answer
                + ": no divergence, so both high watermarks pass offset 0");
    }
}
