package kmc.conformance;

import java.io.File;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * Kafka's classes as this release has them, found by name (record classes moved to
 * org.apache.kafka.common.record.internal in 4.3, UnifiedLog to Java in 4.1, ...), and the
 * record batches the harness writes and reads.
 *
 * A record of the model (a producer write, id n) is one batch of one record whose value starts
 * with n as a 4-byte int and is padded so that the batch is sizeUnits(n) * UNIT bytes: the
 * model's record sizes (uniform, varied, distinct) become byte sizes, and its byte positions
 * (bytes.go) become file positions divided by UNIT.
 */
final class K {
    private K() {}

    /** Bytes per size unit of the model: a one-record batch with a 60-byte value is 128 bytes. */
    static final int UNIT = 128;

    static Class<?> rec(String simple) {
        return Dyn.clsOrThrow("org.apache.kafka.common.record." + simple, "org.apache.kafka.common.record.internal." + simple);
    }

    static final Class<?> MEMORY_RECORDS = rec("MemoryRecords");
    static final Class<?> SIMPLE_RECORD = rec("SimpleRecord");
    static final Class<?> COMPRESSION = Dyn.clsOrThrow("org.apache.kafka.common.compress.Compression");
    /** The UnifiedLog class: Java from 4.1 (with static create), Scala kafka.log.UnifiedLog before. */
    static final Class<?> UNIFIED_LOG = unifiedLog();

    private static Class<?> unifiedLog() {
        Class<?> j = Dyn.cls("org.apache.kafka.storage.internals.log.UnifiedLog");
        if (j != null && Dyn.hasStatic(j, "create", 13)) {
            return j;
        }
        return Dyn.clsOrThrow("kafka.log.UnifiedLog");
    }

    /** The size in units of record id under sizes (the model's recordSize). */
    static int units(String sizes, int id) {
        return switch (sizes) {
            case "varied" -> 2 - (id & 1);
            case "distinct" -> id;
            default -> 1;
        };
    }

    /** A batch of one record with id, of exactly units * UNIT bytes. */
    static Object batch(int id, int units, long timestamp) {
        int target = units * UNIT;
        Integer known = valueLength.get(target);
        if (known != null) {
            return build(id, known, timestamp);
        }
        for (int len = 4; len < target; len++) {
            Object r = build(id, len, timestamp);
            int size = (int) Dyn.call(r, "sizeInBytes");
            if (size == target) {
                valueLength.put(target, len);
                return r;
            }
            if (size > target) {
                break;
            }
        }
        throw new IllegalStateException("no value length makes a " + target + "-byte batch");
    }

    /** The value length that makes a batch of a given size (it depends on neither id, offset nor epoch). */
    private static final java.util.concurrent.ConcurrentHashMap<Integer, Integer> valueLength = new java.util.concurrent.ConcurrentHashMap<>();

    private static Object build(int id, int len, long timestamp) {
        ByteBuffer v = ByteBuffer.allocate(len);
        v.putInt(id);
        while (v.hasRemaining()) {
            v.put((byte) 'x');
        }
        Object rec = Dyn.construct(SIMPLE_RECORD, 3, (t, k) -> {
            if (t == long.class) return timestamp;
            if (k == 0) return null; // key
            return v.array();
        });
        Object none = staticField(COMPRESSION, "NONE");
        Object arr = java.lang.reflect.Array.newInstance(SIMPLE_RECORD, 1);
        java.lang.reflect.Array.set(arr, 0, rec);
        return Dyn.callStatic(MEMORY_RECORDS, "withRecords", none, arr);
    }

    static Object staticField(Class<?> c, String name) {
        try {
            return c.getField(name).get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(c.getName() + "." + name, e);
        }
    }

    /** One batch read back: base offset, leader epoch, record id, position and size in bytes. */
    record Batch(long offset, int epoch, int id, long position, int size) {}

    /** The batches of a Records object (FileRecords or MemoryRecords), in order. */
    static List<Batch> batches(Object records) {
        List<Batch> out = new ArrayList<>();
        long pos = 0;
        for (Object b : Dyn.list(Dyn.call(records, "batches"))) {
            long offset = (long) Dyn.call(b, "baseOffset");
            int epoch = (int) Dyn.call(b, "partitionLeaderEpoch");
            int size = (int) Dyn.call(b, "sizeInBytes");
            long p = Dyn.has(b, "position", 0) ? ((Number) Dyn.call(b, "position")).longValue() : pos;
            int id = 0;
            for (Object r : Dyn.list(b)) {
                ByteBuffer val = (ByteBuffer) Dyn.call(r, "value");
                if (val != null && val.remaining() >= 4) {
                    id = val.getInt(val.position());
                }
                break;
            }
            out.add(new Batch(offset, epoch, id, p, size));
            pos = p + size;
        }
        return out;
    }

    /** MemoryRecords over bytes (what the follower's fetch response holds). */
    static Object memoryRecords(byte[] bytes) {
        return Dyn.callStatic(MEMORY_RECORDS, "readableRecords", ByteBuffer.wrap(bytes));
    }

    /** The log configuration: min.insync.replicas from the trace; everything else Kafka's default. */
    static Object logConfig(int minIsr) {
        Properties p = new Properties();
        p.put("min.insync.replicas", Integer.toString(minIsr));
        Class<?> c = Dyn.clsOrThrow("org.apache.kafka.storage.internals.log.LogConfig");
        return Dyn.construct(c, 1, (t, k) -> p);
    }

    /** The topic id of the harness's one topic. */
    static final org.apache.kafka.common.Uuid TOPIC_ID = new org.apache.kafka.common.Uuid(0x6b6d63L, 0x636f6e666f726dL);

    /**
     * Opens (creates or loads) the log in dir with Kafka's own loading code: UnifiedLog.create
     * (4.1+) or UnifiedLog.apply (Scala, up to 4.0), which run LogLoader: the leader-epoch cache
     * from its checkpoint file and, unless lastShutdownClean, recovery from recoveryPoint.
     */
    static Object openLog(File dir, Object config, long recoveryPoint, boolean clean, Infra.Sched sched, Infra.Clock clock) {
        String m = UNIFIED_LOG.getName().startsWith("kafka.log") ? "apply" : "create";
        int bools = 0;
        int most = -1;
        for (java.lang.reflect.Method x : UNIFIED_LOG.getMethods()) {
            if (x.getName().equals(m) && java.lang.reflect.Modifier.isStatic(x.getModifiers()) && x.getParameterCount() > most) {
                most = x.getParameterCount();
                bools = 0;
                for (Class<?> t : x.getParameterTypes()) {
                    if (t == boolean.class) bools++;
                }
            }
        }
        // (lastShutdownClean[, keepPartitionMetadataFile (up to 4.0)][, remoteStorageSystemEnable])
        final boolean keepFlag = bools == 3;
        Dyn.Filler fill = (t, k) -> {
            if (t == File.class) return dir;
            if (t.getSimpleName().equals("LogConfig")) return config;
            if (t == long.class) return k == 0 ? 0L : recoveryPoint;
            if (t.getSimpleName().equals("Scheduler")) return sched.mock;
            if (t.getSimpleName().equals("BrokerTopicStats")) return Dyn.construct(t, -1, (x, y) -> x == boolean.class ? false : (x == scala.Option.class ? scala.Option.empty() : Optional.empty()));
            if (t.getSimpleName().equals("Time")) return clock;
            if (t == int.class) return k == 0 ? 300000 : 600000; // max transaction timeout, producer-id expiry check
            if (t.getSimpleName().equals("ProducerStateManagerConfig")) {
                return Dyn.construct(t, -1, (x, y) -> x == int.class ? 86400000 : false);
            }
            if (t.getSimpleName().equals("LogDirFailureChannel")) return Dyn.construct(t, 1, (x, y) -> 1);
            if (t == boolean.class) return k == 0 ? clean : (keepFlag && k == 1);
            if (t == scala.Option.class || t == Optional.class) return Optional.of(TOPIC_ID);
            if (t == java.util.concurrent.ConcurrentMap.class) return new java.util.concurrent.ConcurrentHashMap<>();
            if (t.getSimpleName().equals("LogOffsetsListener")) return staticField(t, "NO_OP_OFFSETS_LISTENER");
            throw new IllegalStateException("UnifiedLog: no value for a parameter of type " + t.getName());
        };
        return Dyn.callFilled(UNIFIED_LOG, null, m, fill);
    }
}
