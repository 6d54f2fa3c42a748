package kmc.conformance;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.mockito.Mockito;
import org.mockito.invocation.InvocationOnMock;

/**
 * One partition replicated on brokers 1..N, each with Kafka's real classes: a UnifiedLog in its
 * own folder (with its LeaderEpochFileCache and checkpoint file), a Partition (makeLeader,
 * makeFollower, appendRecordsToLeader, fetchRecords, maybeShrinkIsr, AlterPartition callbacks)
 * and, as follower, a ReplicaFetcherThread per leader it fetches from (AbstractFetcherThread's
 * fetch, response checks, appends through ReplicaFetcherThread.processPartitionData and
 * truncation on a diverging epoch). The harness executes one kmc step at a time.
 *
 * What is not Kafka's: the controller (its decisions arrive as the partition state a broker is
 * given, taken from the trace), the network (a fetch is an in-process exchange whose response
 * holds the leader's lazy FileRecords slice, copied by the harness at NetworkReadRecord steps
 * with FileRecords.writeTo, as the network thread does), and the services a Partition and a
 * fetcher call that play no part in replication (mocked, as Kafka's own tests mock them).
 */
final class Cluster implements AutoCloseable {
    static final TopicPartition TP = new TopicPartition("kmc", 0);
    /** replica.lag.time.max.ms, Kafka's default (30 s). */
    static final long LAG_MAX_MS = 30_000L;

    final int n;
    final int minIsr;
    final int maxFetchBytes;
    final String sizes;
    final File root;
    final Infra.Clock clock = new Infra.Clock();
    final Broker[] brokers;
    /** Per follower (1..N), its fetch exchange in flight, or null. */
    final Exchange[] exchanges;
    /** The controller's view, from the trace: live brokers and broker epochs (KIP-903). */
    final Set<Integer> live = new java.util.HashSet<>();
    final Map<Integer, Long> brokerEpochs = new HashMap<>();
    /** The brokers in controlled shutdown in the controller's view (KRaft's metadata cache; none with ZooKeeper). */
    final Set<Integer> shuttingDown = new java.util.HashSet<>();

    Cluster(File root, int n, int minIsr, int maxFetchRecords, String sizes) {
        this.root = root;
        this.n = n;
        this.minIsr = minIsr;
        this.maxFetchBytes = maxFetchRecords * K.UNIT;
        this.sizes = sizes;
        this.brokers = new Broker[n + 1];
        this.exchanges = new Exchange[n + 1];
        for (int b = 1; b <= n; b++) {
            live.add(b);
            brokerEpochs.put(b, 1L);
        }
        for (int b = 1; b <= n; b++) {
            brokers[b] = new Broker(b);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Brokers

    /** A pending AlterPartition: what the leader's Partition submitted, and its future. */
    static final class Alter {
        final Object leaderAndIsr;
        final CompletableFuture<Object> future = new CompletableFuture<>();
        boolean atController; // the model's controller has taken it (ControllerHandleAlterPartition)

        Alter(Object lai) {
            this.leaderAndIsr = lai;
        }
    }

    final class Broker {
        final int id;
        final File dir;
        Infra.Sched sched = new Infra.Sched();
        Object log; // UnifiedLog
        Object partition; // kafka.cluster.Partition, null while down
        boolean up = true;
        /** null while running; "shutting down" after a granted controlled shutdown; "closing" once it stopped serving. */
        String shut;
        final Map<Integer, Fetcher> fetchers = new TreeMap<>();
        final Object failed = Dyn.construct(Dyn.clsOrThrow("kafka.server.FailedPartitions"), 0, (t, k) -> null);
        Alter alter;
        final Object replicaManager;

        Broker(int id) {
            this.id = id;
            this.dir = new File(root, "broker-" + id + "/" + TP.topic() + "-" + TP.partition());
            if (!dir.mkdirs()) {
                throw new IllegalStateException("cannot create " + dir);
            }
            log = K.openLog(dir, K.logConfig(minIsr), 0L, true, sched, clock);
            replicaManager = Mockito.mock(Dyn.clsOrThrow("kafka.server.ReplicaManager"), this::replicaManagerAnswer);
            partition = newPartition();
        }

        Object newPartition() {
            Class<?> pc = Dyn.clsOrThrow("kafka.cluster.Partition");
            Object p = Dyn.construct(pc, -1, (t, k) -> {
                if (t == TopicPartition.class) return TP;
                if (t == long.class) return LAG_MAX_MS;
                if (t == int.class) return id;
                if (t == scala.Function0.class) return (scala.Function0<Object>) () -> brokerEpochs.getOrDefault(id, 1L);
                if (t == org.apache.kafka.common.utils.Time.class) return clock;
                if (t == scala.Option.class) return scala.Option.apply(K.TOPIC_ID);
                if (t.getSimpleName().equals("MetadataVersion")) return Dyn.callStatic(t, "latestProduction");
                if (t.getSimpleName().equals("MetadataCache")) {
                    // A broker's metadata cache is KRaft's (3.9's and 4.0's Partition applies the
                    // KIP-841/903 eligibility checks only to a KRaftMetadataCache).
                    Class<?> kraft = Dyn.cls("kafka.server.metadata.KRaftMetadataCache", "org.apache.kafka.metadata.KRaftMetadataCache");
                    Class<?> mc = kraft != null && t.isAssignableFrom(kraft) ? kraft : t;
                    return Mockito.mock(mc, (org.mockito.stubbing.Answer<Object>) Cluster.this::metadataAnswer);
                }
                if (t.getSimpleName().equals("AlterPartitionManager")) return Mockito.mock(t, this::alterAnswer);
                if (t.getSimpleName().equals("LogManager")) return Mockito.mock(t, this::logManagerAnswer);
                return Mockito.mock(t, Cluster::defaults);
            });
            Dyn.call(p, "setLog", log, false);
            return p;
        }

        /**
         * Partition.truncateTo and truncateFullyAndStartAt go through LogManager, which holds the
         * broker's logs: LogManager.truncateTo calls UnifiedLog.truncateTo for each partition (and
         * pauses the log cleaner, which the harness does not run); truncateFullyAndStartAt calls
         * UnifiedLog.truncateFullyAndStartAt. The mock does the same on this broker's one log.
         */
        Object logManagerAnswer(InvocationOnMock inv) throws Throwable {
            switch (inv.getMethod().getName()) {
                case "truncateTo": {
                    @SuppressWarnings("unchecked")
                    Map<Object, Object> m = (Map<Object, Object>) Dyn.convert(inv.getArgument(0), Map.class);
                    for (Object off : m.values()) {
                        Dyn.call(log, "truncateTo", ((Number) off).longValue());
                    }
                    return null;
                }
                case "truncateFullyAndStartAt": {
                    long off = inv.getArgument(1);
                    for (java.lang.reflect.Method m : log.getClass().getMethods()) {
                        if (m.getName().equals("truncateFullyAndStartAt")) {
                            Object[] a = new Object[m.getParameterCount()];
                            a[0] = off;
                            for (int i = 1; i < a.length; i++) {
                                Class<?> t = m.getParameterTypes()[i];
                                a[i] = t == scala.Option.class ? scala.Option.empty() : Optional.empty();
                            }
                            m.invoke(log, a);
                            return null;
                        }
                    }
                    throw new IllegalStateException("UnifiedLog has no truncateFullyAndStartAt");
                }
                default:
                    return defaults(inv);
            }
        }

        Object alterAnswer(InvocationOnMock inv) throws Throwable {
            if (inv.getMethod().getName().equals("submit")) {
                if (alter != null) {
                    // DefaultAlterPartitionManager.submit: one item per partition until its
                    // response; another submission fails at once (OperationNotAttemptedException).
                    CompletableFuture<Object> f = new CompletableFuture<>();
                    f.completeExceptionally(Errors.OPERATION_NOT_ATTEMPTED.exception("Failed to enqueue ISR change state " + inv.getArgument(1)));
                    return f;
                }
                alter = new Alter(inv.getArgument(1));
                if (Events.debug) {
                    Events.add("ALTER: broker " + id + " submits " + inv.getArgument(1) + " on " + Thread.currentThread().getName());
                }
                return alter.future;
            }
            return defaults(inv);
        }

        Object replicaManagerAnswer(InvocationOnMock inv) throws Throwable {
            switch (inv.getMethod().getName()) {
                case "getPartitionOrException":
                    if (partition == null) {
                        throw Errors.NOT_LEADER_OR_FOLLOWER.exception();
                    }
                    return partition;
                case "localLogOrException":
                    return log;
                case "brokerTopicStats":
                    return stats(inv.getMethod().getReturnType());
                case "replicaAlterLogDirsManager":
                    if (alterLogDirs == null) {
                        alterLogDirs = Mockito.mock(inv.getMethod().getReturnType(), Cluster::defaults);
                    }
                    return alterLogDirs;
                default:
                    return defaults(inv);
            }
        }

        private Object statsObj;
        private Object alterLogDirs; // no future replica: a mock, as in ReplicaFetcherThreadTest

        Object stats(Class<?> t) {
            if (statsObj == null) {
                statsObj = Dyn.construct(t, -1, (x, y) -> x == boolean.class ? false : (x == scala.Option.class ? scala.Option.empty() : Optional.empty()));
            }
            return statsObj;
        }

        /** The fetcher for leader l (AbstractFetcherManager's thread per source broker), made on demand. */
        Fetcher fetcher(int l) {
            return fetchers.computeIfAbsent(l, x -> new Fetcher(this, x));
        }

        /** The fetcher that holds the partition, or null (ReplicaFetcherManager.getFetcher). */
        Fetcher current() {
            for (Fetcher f : fetchers.values()) {
                if (Dyn.unopt(Dyn.call(f.thread, "fetchState", TP)) != null) {
                    return f;
                }
            }
            return null;
        }

        /** ReplicaFetcherManager.removeFetcherForPartitions. */
        void removeFetcher() {
            for (Fetcher f : fetchers.values()) {
                Dyn.call(f.thread, "removePartitions", Set.of(TP));
            }
            Dyn.call(failed, "removeAll", Set.of(TP));
        }

        /** ReplicaFetcherManager.addFetcherForPartitions with ReplicaManager's InitialFetchState. */
        void addFetcher(int leader, int epoch) {
            Fetcher f = fetcher(leader);
            Class<?> ifs = Dyn.clsOrThrow("kafka.server.InitialFetchState");
            long initOffset = (long) Dyn.call(log, "logEndOffset");
            Object state = Dyn.construct(ifs, 4, (t, k) -> {
                if (t == scala.Option.class) return scala.Option.apply(K.TOPIC_ID);
                if (t == int.class) return epoch;
                if (t == long.class) return initOffset;
                return brokerEndPoint(t, leader);
            });
            Map<TopicPartition, Object> m = new HashMap<>();
            m.put(TP, state);
            Dyn.call(f.thread, "addPartitions", m);
        }

        long logEnd() {
            return (long) Dyn.call(log, "logEndOffset");
        }

        Object cache() {
            return Dyn.unopt(Dyn.call(log, "leaderEpochCache"));
        }
    }

    static Object brokerEndPoint(Class<?> t, int id) {
        return Dyn.construct(t, 3, (x, k) -> x == int.class ? (k == 0 ? id : 9092) : "localhost");
    }

    /** Mockito's defaults, with Scala's None for an Option and an empty Scala collection. */
    static Object defaults(InvocationOnMock inv) throws Throwable {
        Class<?> r = inv.getMethod().getReturnType();
        if (r == scala.Option.class) {
            return scala.Option.empty();
        }
        return Mockito.RETURNS_DEFAULTS.answer(inv);
    }

    /** The metadata cache a Partition asks about ISR eligibility (KIP-841, KIP-903): the trace's controller. */
    Object metadataAnswer(InvocationOnMock inv) throws Throwable {
        String m = inv.getMethod().getName();
        Class<?> r = inv.getMethod().getReturnType();
        switch (m) {
            case "isBrokerFenced":
                return !live.contains((Integer) inv.getArgument(0));
            case "isBrokerShuttingDown":
                return shuttingDown.contains((Integer) inv.getArgument(0));
            case "getAliveBrokerEpoch": {
                int b = inv.getArgument(0);
                Object v = live.contains(b) ? brokerEpochs.get(b) : null;
                return r == scala.Option.class ? scala.Option.apply(v) : Optional.ofNullable(v);
            }
            default:
                return defaults(inv);
        }
    }

    // ---------------------------------------------------------------------------------------
    // The fetcher and the in-process leader endpoint

    /** One fetch of follower f from leader l: request, the leader's answer, the bytes copied. */
    static final class Exchange {
        final int follower, leader;
        final Map<TopicPartition, Object> request; // FetchRequest.PartitionData by partition
        final CompletableFuture<Object> reply = new CompletableFuture<>();
        boolean answered; // the leader handled it: a response is in flight
        Errors error = Errors.NONE;
        long hw;
        int divEpoch = -1;
        long divOffset = -1;
        long leaderLogEnd = -1; // OFFSET_OUT_OF_RANGE: the leader's log end offset then
        Object slice; // the response's records: FileRecords slice (lazy), or null
        long sliceStart, sliceEnd; // byte positions in the leader's segment file
        java.io.ByteArrayOutputStream copied = new java.io.ByteArrayOutputStream();
        boolean readDone; // every byte the follower will see is copied (or the response ends at the cursor)

        Exchange(int follower, int leader, Map<TopicPartition, Object> request) {
            this.follower = follower;
            this.leader = leader;
            this.request = request;
        }

        Object data() {
            return request.get(TP);
        }
    }

    /** A ReplicaFetcherThread of broker b fetching from leader l, driven one doWork() at a time. */
    final class Fetcher {
        final Broker broker;
        final int leader;
        final Object endpoint;
        final Object thread;
        final ExecutorService exec;
        Future<?> work;
        boolean suppress; // buildFetch sends nothing: doWork for maybeTruncate alone
        final CountDownLatch[] sent = new CountDownLatch[1];

        Fetcher(Broker broker, int leader) {
            this.broker = broker;
            this.leader = leader;
            this.exec = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "fetcher-" + broker.id + "-from-" + leader);
                t.setDaemon(true);
                return t;
            });
            Class<?> epc = Dyn.clsOrThrow("org.apache.kafka.server.LeaderEndPoint", "kafka.server.LeaderEndPoint");
            this.endpoint = Mockito.mock(epc, this::endpointAnswer);
            Class<?> rft = Dyn.clsOrThrow("kafka.server.ReplicaFetcherThread");
            this.thread = Dyn.construct(rft, -1, (t, k) -> {
                if (t == String.class) return k == 0 ? "ReplicaFetcherThread-0-" + leader : "[ReplicaFetcher replicaId=" + broker.id + ", leaderId=" + leader + "] ";
                if (t == epc) return endpoint;
                if (t.getSimpleName().equals("FailedPartitions")) return broker.failed;
                if (t.getSimpleName().equals("ReplicaManager")) return broker.replicaManager;
                if (t == scala.Function0.class) {
                    Class<?> mv = Dyn.clsOrThrow("org.apache.kafka.server.common.MetadataVersion");
                    return (scala.Function0<Object>) () -> Dyn.callStatic(mv, "latestProduction");
                }
                return Mockito.mock(t, Cluster::defaults);
            });
        }

        Object endpointAnswer(InvocationOnMock inv) throws Throwable {
            java.lang.reflect.Method m = inv.getMethod();
            switch (m.getName()) {
                case "isTruncationOnFetchSupported":
                    return true;
                case "brokerEndPoint":
                    return brokerEndPoint(m.getReturnType(), leader);
                case "buildFetch":
                    return buildFetch(m, inv.getArgument(0));
                case "fetch":
                    return fetch(m, inv.getArgument(0));
                case "fetchLatestOffset": {
                    int epoch = inv.getArgument(1);
                    Broker l = brokers[leader];
                    if (l.partition == null) {
                        throw Errors.NOT_LEADER_OR_FOLLOWER.exception();
                    }
                    Object lg = Dyn.call(l.partition, "localLogWithEpochOrThrow", Optional.of(epoch), true);
                    return offsetAndEpoch((long) Dyn.call(lg, "logEndOffset"), epoch);
                }
                case "fetchEarliestOffset":
                case "fetchEarliestLocalOffset":
                    return offsetAndEpoch(0L, inv.getArgument(1));
                case "fetchEpochEndOffsets":
                    throw new UnsupportedOperationException("OffsetsForLeaderEpoch: the harness runs truncation on fetch only");
                default:
                    return defaults(inv);
            }
        }

        Object offsetAndEpoch(long offset, int epoch) {
            return Dyn.construct(Dyn.clsOrThrow("org.apache.kafka.server.common.OffsetAndEpoch"), 2,
                    (t, k) -> t == long.class ? offset : epoch);
        }

        /** RemoteLeaderEndPoint.buildFetch, in process: one PartitionData per partition ready to fetch. */
        Object buildFetch(java.lang.reflect.Method m, Object states) throws Exception {
            Map<TopicPartition, Object> data = new LinkedHashMap<>();
            @SuppressWarnings("unchecked")
            Map<TopicPartition, Object> st = (Map<TopicPartition, Object>) Dyn.convert(states, Map.class);
            if (!suppress) {
                for (Map.Entry<TopicPartition, Object> e : st.entrySet()) {
                    Object fs = e.getValue();
                    if (!(boolean) Dyn.call(fs, "isReadyForFetch")) {
                        continue;
                    }
                    long fetchOffset = (long) Dyn.call(fs, "fetchOffset");
                    int epoch = (int) Dyn.call(fs, "currentLeaderEpoch");
                    Object last = Dyn.unopt(Dyn.call(fs, "lastFetchedEpoch"));
                    Optional<Integer> lastOpt = last == null ? Optional.empty() : Optional.of(((Number) last).intValue());
                    Object pd = Dyn.construct(Dyn.clsOrThrow("org.apache.kafka.common.requests.FetchRequest$PartitionData"), 6, (t, k) -> {
                        if (t == org.apache.kafka.common.Uuid.class) return K.TOPIC_ID;
                        if (t == long.class) return k == 0 ? fetchOffset : 0L;
                        if (t == int.class) return maxFetchBytes;
                        return k == 0 ? Optional.of(epoch) : lastOpt;
                    });
                    data.put(e.getKey(), pd);
                }
            }
            Class<?> rwp = m.getReturnType();
            Object result;
            if (data.isEmpty()) {
                result = null;
            } else {
                Class<?> fr = Dyn.clsOrThrow("org.apache.kafka.common.requests.FetchRequest$Builder");
                short version = (short) Dyn.call(Dyn.staticField2("org.apache.kafka.common.protocol.ApiKeys", "FETCH"), "latestVersion");
                Object builder = Dyn.callStatic(fr, "forReplica", version, broker.id, brokerEpochs.getOrDefault(broker.id, 1L), 0, 1, data);
                Class<?> rf = Dyn.clsOrThrow("org.apache.kafka.server.ReplicaFetch", "kafka.server.AbstractFetcherThread$ReplicaFetch");
                result = Dyn.construct(rf, 2, (t, k) -> t.isInstance(builder) ? builder : data);
            }
            // ResultWithPartitions<Optional<ReplicaFetch>> (4.1+), or the Scala case class over an Option.
            boolean scalaOption = m.getGenericReturnType().getTypeName().contains("scala.Option");
            Object wrapped = scalaOption ? scala.Option.apply(result) : Optional.ofNullable(result);
            return Dyn.construct(rwp, 2, (t, k) -> k == 0 && !Set.class.isAssignableFrom(t) && !scala.collection.Set.class.isAssignableFrom(t) ? wrapped : Set.of());
        }

        /** The fetch request goes out: wait, on the fetcher's thread, for the harness to answer it. */
        Object fetch(java.lang.reflect.Method m, Object builder) throws Throwable {
            @SuppressWarnings("unchecked")
            Map<TopicPartition, Object> data = (Map<TopicPartition, Object>) Dyn.call(builder, "fetchData");
            Exchange ex = new Exchange(broker.id, leader, new LinkedHashMap<>(data));
            synchronized (Cluster.this) {
                exchanges[broker.id] = ex;
            }
            sent[0].countDown();
            Object r;
            try {
                r = ex.reply.get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw e.getCause();
            }
            return Dyn.convert(r, m.getReturnType());
        }

        /** Runs one doWork() and waits until it sends a fetch (true) or ends without one (false). */
        boolean sendFetch() throws Exception {
            CountDownLatch latch = new CountDownLatch(1);
            sent[0] = latch;
            work = exec.submit(() -> {
                try {
                    Dyn.call(thread, "doWork");
                } finally {
                    latch.countDown(); // doWork ended (without a fetch, or after its response)
                }
                return null;
            });
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the fetcher of broker " + broker.id + " neither fetched nor ended in 60 s");
            }
            if (exchanges[broker.id] != null && !exchanges[broker.id].answered) {
                return true;
            }
            work.get(60, TimeUnit.SECONDS);
            return false;
        }

        /**
         * Runs doWork() with no fetch sent: maybeTruncate alone. When the fetcher's thread is
         * blocked in a fetch still in flight, this runs on the caller's thread (Kafka would
         * truncate once that fetch returns; the model truncates at the LeaderAndIsr).
         */
        void truncateOnly() throws Exception {
            suppress = true;
            try {
                if (work != null && !work.isDone()) {
                    Dyn.call(thread, "doWork");
                    return;
                }
                sent[0] = new CountDownLatch(1);
                exec.submit(() -> {
                    Dyn.call(thread, "doWork");
                    return null;
                }).get(60, TimeUnit.SECONDS);
            } finally {
                suppress = false;
            }
        }

        void awaitWork() throws Exception {
            if (work != null) {
                work.get(60, TimeUnit.SECONDS);
                work = null;
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Steps

    private Object checkpointsMock; // the high-watermark checkpoints makeLeader/makeFollower get: unused, the log exists

    /**
     * The model's LeaderAndIsr to broker b replaced an undelivered older one that named another
     * leader (model/kafka LapsedLeadership). On Kafka's controller channel, one ordered queue per
     * broker (ControllerChannelManager's RequestSendThread), that older request is delivered and
     * applied first, so b is a follower when the newer one makes it leader (Partition.makeLeader:
     * isNewLeader = !isLeader, and the followers' state is reset). The skipped request's leader is
     * not in the trace: the harness applies a follower state with no leader, one leader and
     * partition epoch below the newer request's (above b's own, as the skipped request's were),
     * and no fetcher runs before the newer request arrives.
     */
    void applyLapsedState(int b, int leaderEpoch, int partitionEpoch, List<Integer> isr) throws Exception {
        applyPartitionState(b, 0, leaderEpoch - 1, partitionEpoch - 1, isr);
        brokers[b].removeFetcher();
    }

    /** Applies partition state (leader, epochs, ISR) on broker b as KRaft's ReplicaManager.applyDelta does. */
    void applyPartitionState(int b, int leader, int leaderEpoch, int partitionEpoch, List<Integer> isr) throws Exception {
        Broker br = brokers[b];
        List<Integer> replicas = new ArrayList<>();
        for (int i = 1; i <= n; i++) replicas.add(i);
        String name = leader == b ? "makeLeader" : "makeFollower";
        java.lang.reflect.Method make = null;
        for (java.lang.reflect.Method m : br.partition.getClass().getMethods()) {
            if (m.getName().equals(name) && (m.getParameterCount() == 4 || m.getParameterCount() == 5)) {
                make = m;
            }
        }
        if (make == null) {
            throw new IllegalStateException("Partition has no " + name + " with 4 or 5 parameters");
        }
        Class<?> stType = make.getParameterTypes()[0];
        Object st;
        Object checkpoints;
        if (stType.getSimpleName().equals("PartitionRegistration")) {
            // 4.2+: the partition's registration in the metadata image, as ReplicaManager.applyDelta passes it.
            Object bld = Dyn.clsOrThrow("org.apache.kafka.metadata.PartitionRegistration$Builder").getConstructor().newInstance();
            int[] reps = replicas.stream().mapToInt(Integer::intValue).toArray();
            org.apache.kafka.common.Uuid[] dirs = new org.apache.kafka.common.Uuid[reps.length];
            java.util.Arrays.fill(dirs, org.apache.kafka.common.Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAA"));
            Dyn.call(bld, "setReplicas", (Object) reps);
            Dyn.call(bld, "setDirectories", (Object) dirs);
            Dyn.call(bld, "setIsr", (Object) isr.stream().mapToInt(Integer::intValue).toArray());
            Dyn.call(bld, "setLeader", leader == 0 ? -1 : leader);
            Dyn.call(bld, "setLeaderRecoveryState", K.staticField(Dyn.clsOrThrow("org.apache.kafka.metadata.LeaderRecoveryState"), "RECOVERED"));
            Dyn.call(bld, "setLeaderEpoch", leaderEpoch);
            Dyn.call(bld, "setPartitionEpoch", partitionEpoch);
            st = Dyn.call(bld, "build");
        } else {
            st = stType.getConstructor().newInstance();
            Dyn.setIf(st, "setTopicName", TP.topic());
            Dyn.setIf(st, "setPartitionIndex", TP.partition());
            Dyn.setIf(st, "setControllerEpoch", 1);
            Dyn.setIf(st, "setLeader", leader == 0 ? -1 : leader);
            Dyn.setIf(st, "setLeaderEpoch", leaderEpoch);
            Dyn.setIf(st, "setIsr", isr);
            Dyn.setIf(st, "setPartitionEpoch", partitionEpoch);
            Dyn.setIf(st, "setReplicas", replicas);
            Dyn.setIf(st, "setAddingReplicas", List.of());
            Dyn.setIf(st, "setRemovingReplicas", List.of());
            Dyn.setIf(st, "setIsNew", false);
        }
        Class<?> cpType = make.getParameterTypes()[make.getParameterCount() == 5 ? 2 : 1];
        if (checkpointsMock == null) {
            checkpointsMock = Mockito.mock(cpType, (org.mockito.stubbing.Answer<Object>) Cluster::defaults);
        }
        checkpoints = checkpointsMock;
        Object[] margs = make.getParameterCount() == 5
                ? new Object[] {st, false, checkpoints, scala.Option.apply(K.TOPIC_ID), scala.Option.empty()}
                : new Object[] {st, checkpoints, scala.Option.apply(K.TOPIC_ID), scala.Option.empty()};
        if (leader == b) {
            br.removeFetcher();
            Dyn.call(br.partition, "makeLeader", margs);
        } else {
            boolean isNewEpoch = (boolean) Dyn.call(br.partition, "makeFollower", margs);
            if (isNewEpoch) {
                br.removeFetcher();
                if (leader != 0) {
                    br.addFetcher(leader, leaderEpoch);
                    Fetcher f = br.current();
                    if (f != null && (boolean) Dyn.call(Dyn.unopt(Dyn.call(f.thread, "fetchState", TP)), "isTruncating")) {
                        // A log without a leader epoch starts in Truncating and truncates to its
                        // high watermark on the fetcher's next doWork (maybeTruncate), before any
                        // fetch: the model takes both in this step.
                        f.truncateOnly();
                    }
                }
            }
        }
    }

    /**
     * The model drops a fetch response in flight to broker b when a LeaderAndIsr changes b's
     * leader or epoch (the partition leaves its fetcher; KAFKA-13207 drops a response for a
     * partition no longer fetched). Kafka has no such step: the response reaches the fetcher
     * thread, whose processFetchRequest checks decide. So the harness hands it over now, after
     * the new partition state: a response read whole is delivered (Kafka's checks must ignore
     * it for the states to agree); one still being read is cut (a disconnect).
     */
    void responseAfterLeaderChange(int b) throws Exception {
        Exchange ex = exchanges[b];
        if (ex == null || !ex.answered) {
            return;
        }
        if (ex.readDone) {
            deliver(b);
        } else {
            fail(b, new IOException("the response to broker " + b + " was cut while being read"));
        }
    }

    void leaderAppend(int l, int id) {
        Broker br = brokers[l];
        Object batch = K.batch(id, K.units(sizes, id), clock.milliseconds());
        Class<?> origin = Dyn.clsOrThrow("org.apache.kafka.storage.internals.log.AppendOrigin");
        Object client = Enum.valueOf(origin.asSubclass(Enum.class), "CLIENT");
        Class<?> rl = Dyn.clsOrThrow("org.apache.kafka.server.common.RequestLocal", "kafka.server.RequestLocal");
        Object requestLocal = Dyn.hasStatic(rl, "noCaching", 0) ? Dyn.callStatic(rl, "noCaching") : Dyn.callStatic(rl, "NoCaching");
        Class<?> vg = Dyn.clsOrThrow("org.apache.kafka.storage.internals.log.VerificationGuard");
        Object sentinel = K.staticField(vg, "SENTINEL");
        Dyn.callDefaults(br.partition, "appendRecordsToLeader", batch, client, -1, requestLocal, sentinel);
    }

    void followerSendFetch(int f) throws Exception {
        Broker br = brokers[f];
        Fetcher fe = br.current();
        if (fe == null) {
            Events.add("HARNESS: broker " + f + " has no fetcher holding the partition: no fetch sent");
            return;
        }
        if (!fe.sendFetch()) {
            Events.add("HARNESS: broker " + f + "'s fetcher ran doWork and sent no fetch");
        }
    }

    void leaderHandleFetch(int l, int f, long replicaEpoch) throws Exception {
        Exchange ex = exchanges[f];
        if (ex == null || ex.answered || ex.leader != l) {
            throw new IllegalStateException("no fetch request from broker " + f + " to broker " + l + " is in flight");
        }
        Broker lb = brokers[l];
        Object pd = ex.data();
        Class<?> fpc = Dyn.clsOrThrow("org.apache.kafka.server.storage.log.FetchParams", "org.apache.kafka.storage.internals.log.FetchParams");
        Class<?> iso = Dyn.clsOrThrow("org.apache.kafka.server.storage.log.FetchIsolation", "org.apache.kafka.storage.internals.log.FetchIsolation");
        Object logEnd = Enum.valueOf(iso.asSubclass(Enum.class), "LOG_END");
        int ints[] = {0};
        Object params = Dyn.construct(fpc, -1, (t, k) -> {
            if (t == short.class) return (short) Dyn.call(Dyn.staticField2("org.apache.kafka.common.protocol.ApiKeys", "FETCH"), "latestVersion");
            if (t == int.class) return k == 0 ? f : (k == 1 ? 1 : maxFetchBytes); // replicaId, minBytes, maxBytes
            if (t == long.class) return k == 0 ? replicaEpoch : 0L; // replicaEpoch, maxWaitMs
            if (t == iso) return logEnd;
            if (t == Optional.class) return Optional.empty();
            if (t == boolean.class) return false;
            throw new IllegalStateException("FetchParams: no value for " + t);
        });
        ex.answered = true;
        Object info;
        try {
            if (lb.partition == null) {
                throw Errors.NOT_LEADER_OR_FOLLOWER.exception();
            }
            info = Dyn.call(lb.partition, "fetchRecords", params, pd, clock.milliseconds(), maxFetchBytes, true, true);
        } catch (Exception e) {
            ex.error = Errors.forException(e);
            Events.add("FETCH: broker " + l + " answers broker " + f + "'s fetch with " + ex.error.name() + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
            if (ex.error == Errors.OFFSET_OUT_OF_RANGE) {
                ex.leaderLogEnd = lb.logEnd();
            }
            if (ex.error != Errors.FENCED_LEADER_EPOCH && ex.error != Errors.OFFSET_OUT_OF_RANGE) {
                // The model answers UNKNOWN_LEADER_EPOCH and NOT_LEADER_OR_FOLLOWER in this step:
                // the follower retries and nothing changes. Deliver it now.
                deliver(f);
            } else {
                ex.readDone = true;
            }
            return;
        }
        ex.hw = (long) Dyn.get(info, "highWatermark");
        Object div = Dyn.unopt(Dyn.get(info, "divergingEpoch"));
        if (div != null) {
            ex.divEpoch = (int) Dyn.call(div, "epoch");
            ex.divOffset = (long) Dyn.call(div, "endOffset");
        }
        Object fetched = Dyn.get(info, "fetchedData");
        Object records = Dyn.get(fetched, "records");
        if (records.getClass().getSimpleName().equals("FileRecords")) {
            ex.slice = records;
            ex.sliceStart = ((Number) privateField(records, "start")).longValue();
            ex.sliceEnd = ((Number) privateField(records, "end")).longValue();
            int size = (int) Dyn.call(records, "sizeInBytes");
            ex.sliceEnd = ex.sliceStart + size;
        }
        ex.readDone = ex.slice == null || ex.sliceEnd == ex.sliceStart;
    }

    static Object privateField(Object o, String name) {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                java.lang.reflect.Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                // superclass
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException(o.getClass().getName() + " has no field " + name);
    }

    /** The segment file's records of broker b (one segment: the model's log is one). */
    Object segmentRecords(Broker b) {
        List<Object> segs = Dyn.list(Dyn.call(b.log, "logSegments"));
        if (segs.size() != 1) {
            throw new IllegalStateException("SEGMENT-ROLL: broker " + b.id + "'s log has " + segs.size()
                + " segments (Kafka rolled one at offset " + Dyn.call(segs.get(segs.size() - 1), "baseOffset")
                + "); the model's byte positions describe a log of one segment");
        }
        return Dyn.call(segs.get(0), "log");
    }

    /**
     * NetworkReadRecord(srv, f) and NetworkReadGarbage(srv, f): the network thread copies the
     * next chunk of the response's slice with FileRecords.writeTo, from the server's file as it
     * is now. A chunk is the batch the file holds at the cursor when it fits in the slice, else
     * the rest of the slice. garbage: the model's NetworkReadGarbage (the follower stops at a
     * garbage header).
     */
    void networkRead(int srv, int f, boolean garbage) throws Exception {
        Exchange ex = exchanges[f];
        if (ex == null || !ex.answered || ex.readDone || ex.leader != srv) {
            throw new IllegalStateException("no fetch response from broker " + srv + " to broker " + f + " is being read");
        }
        long cursor = ex.sliceStart + ex.copied.size();
        Object file = segmentRecords(brokers[srv]);
        K.Batch at = null;
        for (K.Batch b : K.batches(file)) {
            if (b.position() == cursor) {
                at = b;
            }
        }
        long chunk = at != null && cursor + at.size() <= ex.sliceEnd ? at.size() : ex.sliceEnd - cursor;
        Sink sink = new Sink();
        try {
            Dyn.call(ex.slice, "writeTo", sink.proxy(), (int) (cursor - ex.sliceStart), (int) chunk);
        } catch (Exception e) {
            // FileRecords.writeTo: "Size of FileRecords ... has been truncated during write": the
            // send fails and the connection closes; the follower sees a disconnect.
            Events.add("ERROR network: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            fail(f, new IOException("connection to broker " + srv + " closed: " + e.getMessage()));
            return;
        }
        ex.copied.write(sink.bytes.toByteArray());
        boolean whole = at != null && cursor + at.size() <= ex.sliceEnd;
        if (!whole) {
            ex.readDone = true; // a partial batch or garbage: the follower's iterator ends here
            if (at == null && !garbage) {
                // The model's NetworkReadRecord at a garbage cursor: the follower rejects the bytes
                // (CorruptRecordException) and retries. Kafka's fetcher decides on the real bytes.
                deliver(f);
                return;
            }
        } else if (ex.copied.size() >= ex.sliceEnd - ex.sliceStart) {
            ex.readDone = true;
        }
    }

    /** A TransferableChannel into memory: what FileRecords.writeTo sends on the socket. */
    static final class Sink {
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();

        static final Class<?> TC = Dyn.clsOrThrow("org.apache.kafka.common.network.TransferableChannel");

        Object proxy() {
            return java.lang.reflect.Proxy.newProxyInstance(TC.getClassLoader(), new Class<?>[] {TC}, (p, m, a) -> {
                switch (m.getName()) {
                    case "transferFrom": {
                        FileChannel ch = (FileChannel) a[0];
                        long pos = (long) a[1];
                        long count = (long) a[2];
                        ByteBuffer buf = ByteBuffer.allocate((int) count);
                        while (buf.hasRemaining()) {
                            int r = ch.read(buf, pos + buf.position());
                            if (r < 0) break;
                        }
                        bytes.write(buf.array(), 0, buf.position());
                        return (long) buf.position();
                    }
                    case "write": {
                        long total = 0;
                        ByteBuffer[] bbs = a[0] instanceof ByteBuffer one ? new ByteBuffer[] {one} : (ByteBuffer[]) a[0];
                        for (ByteBuffer bb : bbs) {
                            int k = bb.remaining();
                            byte[] x = new byte[k];
                            bb.get(x);
                            bytes.write(x);
                            total += k;
                        }
                        return m.getReturnType() == int.class ? (Object) (int) total : (Object) total;
                    }
                    case "isOpen":
                        return true;
                    case "hasPendingWrites":
                        return false;
                    case "hashCode":
                        return System.identityHashCode(p);
                    case "equals":
                        return p == a[0];
                    case "toString":
                        return "Sink";
                    default:
                        return null;
                }
            });
        }
    }

    /** FollowerHandleFetchResponse(f): the response reaches the fetcher, which processes it. */
    void followerHandleFetchResponse(int f) throws Exception {
        Exchange ex = exchanges[f];
        if (ex == null || !ex.answered || !ex.readDone) {
            throw new IllegalStateException("no complete fetch response to broker " + f + " is in flight");
        }
        deliver(f);
    }

    /** Completes follower f's fetch with the response as read, and waits for its doWork to end. */
    void deliver(int f) throws Exception {
        Exchange ex = exchanges[f];
        Class<?> pdc = Dyn.clsOrThrow("org.apache.kafka.common.message.FetchResponseData$PartitionData");
        Object pd = pdc.getConstructor().newInstance();
        Dyn.call(pd, "setPartitionIndex", TP.partition());
        Dyn.call(pd, "setErrorCode", ex.error.code());
        Dyn.call(pd, "setHighWatermark", ex.error == Errors.NONE ? ex.hw : -1L);
        Dyn.call(pd, "setLogStartOffset", ex.error == Errors.NONE ? 0L : -1L);
        if (ex.divEpoch >= 0) {
            Class<?> eeo = Dyn.clsOrThrow("org.apache.kafka.common.message.FetchResponseData$EpochEndOffset");
            Object d = eeo.getConstructor().newInstance();
            Dyn.call(d, "setEpoch", ex.divEpoch);
            Dyn.call(d, "setEndOffset", ex.divOffset);
            Dyn.call(pd, "setDivergingEpoch", d);
        }
        Dyn.call(pd, "setRecords", K.memoryRecords(ex.copied.toByteArray()));
        Map<TopicPartition, Object> m = new HashMap<>();
        m.put(TP, pd);
        finish(f, () -> ex.reply.complete(m));
    }

    /** Fails follower f's fetch in flight (a disconnect) and waits for its doWork to end. */
    void fail(int f, Exception e) throws Exception {
        Exchange ex = exchanges[f];
        if (ex == null) {
            return;
        }
        finish(f, () -> ex.reply.completeExceptionally(e));
    }

    private void finish(int f, Runnable complete) throws Exception {
        Exchange ex = exchanges[f];
        Fetcher fe = brokers[f].fetchers.get(ex.leader);
        synchronized (this) {
            exchanges[f] = null;
        }
        complete.run();
        if (fe != null) {
            fe.awaitWork();
        }
    }

    /** LeaderShrinkISR(l, f): time passes until f has lagged replica.lag.time.max.ms; maybeShrinkIsr. */
    void leaderShrinkIsr(int l, int f) {
        Broker br = brokers[l];
        Object rep = Dyn.unopt(Dyn.call(br.partition, "getReplica", f));
        if (rep != null) {
            Object snap = Dyn.call(rep, "stateSnapshot");
            long caught = (long) Dyn.call(snap, "lastCaughtUpTimeMs");
            long need = caught + LAG_MAX_MS + 1 - clock.milliseconds();
            if (need > 0) {
                clock.advance(need);
            }
        }
        Dyn.call(br.partition, "maybeShrinkIsr");
    }

    /** LeaderHandleAlterPartitionResponse(b): the controller's answer, from the trace, completes the submission. */
    void alterPartitionResponse(int b, String error, int leaderEpoch, int partitionEpoch, List<Integer> isr) {
        Broker br = brokers[b];
        Alter a = br.alter;
        if (a == null) {
            Events.add("HARNESS: broker " + b + " has no AlterPartition in flight");
            return;
        }
        br.alter = null;
        if (!error.equals("NONE")) {
            a.future.completeExceptionally(Errors.valueOf(error).exception());
            return;
        }
        Class<?> lai = a.leaderAndIsr.getClass();
        Class<?> lrs = Dyn.clsOrThrow("org.apache.kafka.metadata.LeaderRecoveryState");
        Object recovered = K.staticField(lrs, "RECOVERED");
        Object v;
        if (lai.getName().startsWith("kafka.api")) {
            // Scala LeaderAndIsr (3.9): LeaderAndIsr.apply(leader, leaderEpoch, isr, recoveryState, partitionEpoch)
            v = Dyn.callStatic(lai, "apply", b, leaderEpoch, isr, recovered, partitionEpoch);
        } else {
            // LeaderAndIsr(leader, leaderEpoch, List<Integer> isr, LeaderRecoveryState, partitionEpoch)
            v = Dyn.construct(lai, 5, k -> k.getParameterCount() == 5 && k.getParameterTypes()[2] == List.class, (t, k) -> {
                if (t == int.class) return k == 0 ? b : (k == 1 ? leaderEpoch : partitionEpoch);
                if (t == List.class) return isr;
                return recovered;
            });
        }
        boolean done = a.future.complete(v);
        if (Events.debug) {
            Events.add("ALTER: broker " + b + " gets " + v + " (completed " + done + ")");
        }
    }

    // ---------------------------------------------------------------------------------------
    // Crashes

    /**
     * Stops broker b: its connections close (every exchange with it fails), its fetchers stop,
     * and its log is closed (clean) or abandoned (kill, power loss); then Kafka loads the log as a
     * restart will (UnifiedLog.create / apply -> LogLoader), so that the state while down is what
     * the restart finds. keptStale: stale checkpoint entries the trace keeps (0: the asynchronous
     * checkpoint write after the last truncation ran; more: it was lost).
     */
    void crash(int b, String kind, long recoveryFrom, long newLogEnd, int checkpointEntries, int keptStale) throws Exception {
        Broker br = brokers[b];
        long oldHw = (long) Dyn.call(br.log, "highWatermark");
        // connections close
        for (int f = 1; f <= n; f++) {
            Exchange ex = exchanges[f];
            if (ex != null && (f == b || ex.leader == b)) {
                fail(f, new IOException("connection closed: broker " + b + " stopped"));
            }
        }
        for (Fetcher fe : br.fetchers.values()) {
            fe.exec.shutdownNow();
        }
        br.fetchers.clear();
        Dyn.call(br.failed, "removeAll", Set.of(TP));
        br.alter = null;
        if (kind.equals("unclean") || kind.equals("power")) {
            Object cache = br.cache();
            int entries = Dyn.list(Dyn.call(cache, "epochEntries")).size();
            keptStale = checkpointEntries - entries;
        }
        if (keptStale == 0) {
            br.sched.runAll();
        } else {
            br.sched.dropAll();
        }
        long recoveryPoint;
        boolean clean = kind.equals("clean");
        if (clean) {
            Dyn.call(br.log, "flush", false);
            Dyn.call(br.log, "close");
            recoveryPoint = br.logEnd();
        } else {
            // SIGKILL: the object is abandoned; every write is in the page cache. Power loss: the
            // files are cut back to what reached the disk (the trace's new log end).
            if (kind.equals("power")) {
                cutTo(br, newLogEnd);
            }
            recoveryPoint = recoveryFrom;
        }
        br.sched = new Infra.Sched();
        br.partition = null;
        br.up = false;
        br.log = K.openLog(br.dir, K.logConfig(minIsr), recoveryPoint, clean, br.sched, clock);
        // The high watermark comes back from its checkpoint (ReplicaManager's
        // replication-offset-checkpoint), here as it was at the crash, capped at the log end.
        Dyn.call(br.log, "updateHighWatermark", Math.min(oldHw, br.logEnd()));
    }

    /** Power loss: the segment file keeps the batches below offset end; its indexes are rebuilt by recovery. */
    void cutTo(Broker br, long end) throws IOException {
        Object file = segmentRecords(br);
        long size = -1;
        for (K.Batch b : K.batches(file)) {
            if (b.offset() >= end) {
                size = b.position();
                break;
            }
        }
        File f = (File) Dyn.call(file, "file");
        if (size >= 0) {
            try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
                raf.getChannel().truncate(size);
            }
        }
    }

    /**
     * BrokerBeginShutdown(b), and BrokerCrash(b) from 3.8: request processing stops, so the
     * connections of the followers that fetch from b close (a fetch in flight to b, or b's
     * response, fails as a disconnect); then KafkaScheduler.shutdown runs the tasks already
     * queued (their delay has passed) and ignores those scheduled later. b's own fetchers run
     * on until BrokerStop.
     */
    void beginShutdown(int b) throws Exception {
        Broker br = brokers[b];
        for (int f = 1; f <= n; f++) {
            Exchange ex = exchanges[f];
            if (ex != null && f != b && ex.leader == b) {
                fail(f, new IOException("connection closed: broker " + b + " stopped serving"));
            }
        }
        br.sched.runAll();
        br.sched.stopped = true;
        br.shut = "closing";
    }

    /**
     * BrokerControlledShutdown(b): the controller granted it; b serves on. With ZooKeeper a
     * partition b follows gets StopReplica (deletePartition = false): it leaves b's fetcher
     * (ReplicaManager.stopReplicas -> removeFetcherForPartitions), and a response in flight to
     * b reaches a fetcher that no longer holds it.
     */
    void controlledShutdown(int b, boolean stopFetcher, boolean dropResponse) throws Exception {
        Broker br = brokers[b];
        br.shut = "shutting down";
        if (stopFetcher) {
            br.removeFetcher();
            if (dropResponse) {
                responseAfterLeaderChange(b);
            }
        }
    }

    void restart(int b) {
        Broker br = brokers[b];
        br.up = true;
        br.shut = null;
        br.partition = br.newPartition();
    }

    @Override
    public void close() {
        for (int b = 1; b <= n; b++) {
            Broker br = brokers[b];
            if (br == null) continue;
            for (Fetcher fe : br.fetchers.values()) {
                fe.exec.shutdownNow();
            }
            try {
                Dyn.call(br.log, "close");
            } catch (RuntimeException e) {
                // already closed
            }
        }
    }
}
