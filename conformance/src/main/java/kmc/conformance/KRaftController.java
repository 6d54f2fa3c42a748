package kmc.conformance;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.metadata.FeatureLevelRecord;
import org.apache.kafka.common.metadata.PartitionChangeRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The KRaft controller's partition changes on Kafka's real classes: for one step of the model's
 * KRaft control plane, a real ReplicationControlManager (with its real ClusterControlManager,
 * FeatureControlManager and ConfigurationControlManager over a SnapshotRegistry, the objects
 * QuorumController builds) is seeded by replaying the records that give the model's state
 * before the step (a FeatureLevelRecord per feature, a RegisterBrokerRecord per broker with its
 * epoch, fencing and controlled-shutdown flags, the TopicRecord and the PartitionRecord with
 * leader, epochs, ISR, ELR and last known ELR), and the step's handler runs on it:
 *
 *   fenced              ReplicationControlManager.handleBrokerFenced (session expiry, SHUTDOWN_NOW)
 *   unfenced            handleBrokerUnfenced
 *   controlledShutdown  handleBrokerInControlledShutdown
 *   shutdown            handleBrokerShutdown(id, isCleanShutdown) (4.0+: ClusterControlManager.
 *                       registerBroker's brokerShutdownHandler); 3.9: handleBrokerUncleanShutdown
 *   alterPartition      alterPartition (the request as the model's leader sent it)
 *   electPreferred      electLeaders with ElectionType.PREFERRED
 *
 * Each PartitionChangeRecord the handler returns is computed by the real PartitionChangeBuilder
 * (generateLeaderAndIsrUpdates, alterPartition and electLeader build one), and merged into the
 * prior registration with PartitionRegistration.merge, as the controller's replay does. The result
 * (and an AlterPartition's error) is what kmc compares with the model's next state.
 *
 * The controller classes are package-private; they are reached by reflection (setAccessible), so
 * that one source builds against every release.
 */
final class KRaftController {
    private KRaftController() {
    }

    static Map<String, Object> run(Map<String, Object> k) throws Exception {
        String handler = (String) k.get("handler");
        int b = Json.i(k, "broker", 0);
        Map<String, Object> prior = Json.obj(k.get("prior"));
        List<Integer> replicas = Json.ints(k.get("replicas"));
        // LogContext moved to org.apache.kafka.common.utils.internals in 4.4.
        Class<?> lcc = Dyn.clsOrThrow("org.apache.kafka.common.utils.LogContext", "org.apache.kafka.common.utils.internals.LogContext");
        Object lc = lcc.getConstructor(String.class).newInstance("[kmc controller] ");
        Object sr = Class.forName("org.apache.kafka.timeline.SnapshotRegistry").getConstructor(lcc).newInstance(lc);

        // FeatureControlManager: the release's latest production metadata version (or the one the
        // trace's profile names), and eligible.leader.replicas.version 1 when the model has ELR.
        Object fcb = builder("org.apache.kafka.controller.FeatureControlManager$Builder");
        opt(fcb, "setLogContext", lc);
        opt(fcb, "setSnapshotRegistry", sr);
        // The controller's supported features: the release's own (QuorumFeatures.
        // defaultSupportedFeatureMap, unstable versions included, as a controller node reports them).
        Class<?> qf = Class.forName("org.apache.kafka.controller.QuorumFeatures");
        Object supported = Dyn.hasStatic(qf, "defaultSupportedFeatureMap", 1)
                ? Dyn.callStatic(qf, "defaultSupportedFeatureMap", true)
                : Dyn.callStatic(qf, "defaultFeatureMap", true); // 3.9
        opt(fcb, "setQuorumFeatures", qf.getConstructor(int.class, Map.class, List.class).newInstance(0, supported, List.of(0)));
        Object fcm = inv(fcb, "build");
        Class<?> mvc = Class.forName("org.apache.kafka.server.common.MetadataVersion");
        Object mv = Dyn.callStatic(mvc, "latestProduction");
        String mvName = (String) k.get("metadataVersion");
        if (mvName != null && !mvName.isEmpty()) {
            // 4.2 added fromVersionString's enableUnstableFeature parameter.
            mv = Dyn.hasStatic(mvc, "fromVersionString", 2) ? Dyn.callStatic(mvc, "fromVersionString", mvName, true)
                    : Dyn.callStatic(mvc, "fromVersionString", mvName);
        }
        short mvLevel = (short) Dyn.call(mv, "featureLevel");
        inv(fcm, "replay", new FeatureLevelRecord().setName("metadata.version").setFeatureLevel(mvLevel));
        boolean elr = Boolean.TRUE.equals(k.get("elr"));
        if (elr) {
            inv(fcm, "replay", new FeatureLevelRecord().setName("eligible.leader.replicas.version").setFeatureLevel((short) 1));
        }

        // ConfigurationControlManager: min.insync.replicas and unclean.leader.election.enable as
        // the trace's configuration has them (the topic's effective configuration).
        ConfigDef topicDef = new ConfigDef()
                .define("min.insync.replicas", ConfigDef.Type.INT, Json.i(k, "minIsr", 1), ConfigDef.Importance.HIGH, "")
                .define("unclean.leader.election.enable", ConfigDef.Type.BOOLEAN, Boolean.TRUE.equals(k.get("unclean")), ConfigDef.Importance.HIGH, "");
        Object schema = Class.forName("org.apache.kafka.metadata.KafkaConfigSchema").getConstructor(Map.class, Map.class)
                .newInstance(Map.of(ConfigResource.Type.TOPIC, topicDef), Map.of());
        Object ccb = builder("org.apache.kafka.controller.ConfigurationControlManager$Builder");
        opt(ccb, "setLogContext", lc);
        opt(ccb, "setSnapshotRegistry", sr);
        inv(ccb, "setKafkaConfigSchema", schema);
        opt(ccb, "setFeatureControl", fcm);
        Object configs = inv(ccb, "build");

        // ClusterControlManager, activated (QuorumController.claim), with every broker's registration.
        Object clb = builder("org.apache.kafka.controller.ClusterControlManager$Builder");
        opt(clb, "setLogContext", lc);
        opt(clb, "setClusterId", "kmc-conformance-cluster");
        opt(clb, "setTime", org.apache.kafka.common.utils.Time.SYSTEM);
        opt(clb, "setSnapshotRegistry", sr);
        opt(clb, "setSessionTimeoutNs", 9_000_000_000L);
        opt(clb, "setReplicaPlacer", Class.forName("org.apache.kafka.metadata.placement.StripedReplicaPlacer")
                .getConstructor(java.util.Random.class).newInstance(new java.util.Random(0)));
        opt(clb, "setFeatureControlManager", fcm);
        for (String h : new String[] {"setBrokerShutdownHandler", "setBrokerUncleanShutdownHandler"}) {
            Method m = find(clb.getClass(), h, 1);
            if (m != null) {
                Class<?> it = m.getParameterTypes()[0];
                m.invoke(clb, java.lang.reflect.Proxy.newProxyInstance(it.getClassLoader(), new Class<?>[] {it}, (p, mm, a) -> null));
            }
        }
        Object cluster = inv(clb, "build");
        inv(cluster, "activate");
        long offset = 1;
        Map<Integer, Long> epochs = new LinkedHashMap<>();
        for (Object o : Json.arr(k.get("brokers"))) {
            Map<String, Object> r = Json.obj(o);
            int id = Json.i(r, "id", 0);
            long epoch = ((Number) r.get("epoch")).longValue();
            epochs.put(id, epoch);
            RegisterBrokerRecord rec = new RegisterBrokerRecord().setBrokerId(id).setBrokerEpoch(epoch)
                    .setIncarnationId(new Uuid(id, epoch)).setFenced(Boolean.TRUE.equals(r.get("fenced")))
                    .setInControlledShutdown(Boolean.TRUE.equals(r.get("shuttingDown")))
                    .setLogDirs(List.of(dir(id)));
            inv(cluster, "replay", rec, offset++);
        }

        Object rcb = builder("org.apache.kafka.controller.ReplicationControlManager$Builder");
        opt(rcb, "setLogContext", lc);
        opt(rcb, "setSnapshotRegistry", sr);
        inv(rcb, "setConfigurationControl", configs);
        inv(rcb, "setClusterControl", cluster);
        opt(rcb, "setFeatureControl", fcm);
        // 3.9: eligible.leader.replicas.enable, a controller config (ReplicationControlManager.
        // isElrEnabled also needs metadata version 4.0-IV0, which 3.9 does not ship as production).
        opt(rcb, "setEligibleLeaderReplicasEnabled", elr);
        Object rcm = inv(rcb, "build");
        inv(rcm, "replay", new TopicRecord().setName(Cluster.TP.topic()).setTopicId(K.TOPIC_ID));
        List<Uuid> dirs = new ArrayList<>();
        for (int r : replicas) {
            dirs.add(dir(r));
        }
        int leader = Json.i(prior, "leader", 0);
        PartitionRecord pr = new PartitionRecord().setTopicId(K.TOPIC_ID).setPartitionId(Cluster.TP.partition())
                .setReplicas(replicas).setIsr(Json.ints(prior.get("isr")))
                .setLeader(leader == 0 ? -1 : leader).setLeaderEpoch(Json.i(prior, "leaderEpoch", 0))
                .setPartitionEpoch(Json.i(prior, "partitionEpoch", 0)).setDirectories(dirs)
                .setEligibleLeaderReplicas(Json.ints(prior.get("elr"))).setLastKnownElr(Json.ints(prior.get("lastKnownElr")));
        inv(rcm, "replay", pr);

        List<Object> records = new ArrayList<>();
        String error = null;
        String called;
        switch (handler) {
            case "fenced" -> {
                called = "ReplicationControlManager.handleBrokerFenced";
                inv(rcm, "handleBrokerFenced", b, records);
            }
            case "unfenced" -> {
                called = "ReplicationControlManager.handleBrokerUnfenced";
                inv(rcm, "handleBrokerUnfenced", b, epochs.get(b), records);
            }
            case "controlledShutdown" -> {
                called = "ReplicationControlManager.handleBrokerInControlledShutdown";
                inv(rcm, "handleBrokerInControlledShutdown", b, epochs.get(b), records);
            }
            case "shutdown" -> {
                if (find(rcm.getClass(), "handleBrokerShutdown", 3) != null) {
                    boolean clean = Boolean.TRUE.equals(k.get("clean"));
                    called = "ReplicationControlManager.handleBrokerShutdown(" + (clean ? "clean" : "unclean") + ")";
                    inv(rcm, "handleBrokerShutdown", b, clean, records);
                } else {
                    called = "ReplicationControlManager.handleBrokerUncleanShutdown";
                    inv(rcm, "handleBrokerUncleanShutdown", b, records);
                }
            }
            case "alterPartition" -> {
                called = "ReplicationControlManager.alterPartition";
                Map<String, Object> req = Json.obj(k.get("request"));
                Map<String, Object> memberEpochs = Json.obj(req.get("epochs"));
                List<AlterPartitionRequestData.BrokerState> isr = new ArrayList<>();
                for (int r : Json.ints(req.get("isr"))) {
                    Object e = memberEpochs.get(Integer.toString(r));
                    isr.add(new AlterPartitionRequestData.BrokerState().setBrokerId(r).setBrokerEpoch(e == null ? -1L : ((Number) e).longValue()));
                }
                AlterPartitionRequestData data = new AlterPartitionRequestData().setBrokerId(b)
                        .setBrokerEpoch(((Number) req.get("brokerEpoch")).longValue());
                AlterPartitionRequestData.PartitionData pd = new AlterPartitionRequestData.PartitionData()
                        .setPartitionIndex(Cluster.TP.partition()).setLeaderEpoch(Json.i(req, "leaderEpoch", 0))
                        .setPartitionEpoch(Json.i(req, "partitionEpoch", 0)).setNewIsrWithEpochs(isr);
                Dyn.call(Dyn.call(data, "topics"), "add", new AlterPartitionRequestData.TopicData().setTopicId(K.TOPIC_ID).setPartitions(List.of(pd)));
                short version = ApiKeys.ALTER_PARTITION.latestVersion();
                Object ctx = Class.forName("org.apache.kafka.controller.ControllerRequestContext")
                        .getConstructor(RequestHeaderData.class, KafkaPrincipal.class, OptionalLong.class)
                        .newInstance(new RequestHeaderData().setRequestApiKey(ApiKeys.ALTER_PARTITION.id).setRequestApiVersion(version),
                                KafkaPrincipal.ANONYMOUS, OptionalLong.empty());
                try {
                    Object res = inv(rcm, "alterPartition", ctx, data);
                    records.addAll((List<?>) Dyn.call(res, "records"));
                    org.apache.kafka.common.message.AlterPartitionResponseData resp =
                            (org.apache.kafka.common.message.AlterPartitionResponseData) Dyn.call(res, "response");
                    Errors e = Errors.forCode(resp.errorCode());
                    List<Object> topics = Dyn.list(Dyn.call(resp, "topics"));
                    if (e == Errors.NONE && !topics.isEmpty()) {
                        List<Object> parts = Dyn.list(Dyn.call(topics.get(0), "partitions"));
                        if (!parts.isEmpty()) {
                            e = Errors.forCode((short) Dyn.call(parts.get(0), "errorCode"));
                        }
                    }
                    error = e.name();
                } catch (Exception e) {
                    // QuorumController answers a thrown ApiException with its error
                    // (StaleBrokerEpochException from ClusterControlManager.checkBrokerEpoch).
                    error = Errors.forException(e).name();
                }
            }
            case "electPreferred" -> {
                called = "ReplicationControlManager.electLeaders(PREFERRED)";
                ElectLeadersRequestData req = new ElectLeadersRequestData().setElectionType((byte) 0);
                ElectLeadersRequestData.TopicPartitions tps = new ElectLeadersRequestData.TopicPartitions()
                        .setTopic(Cluster.TP.topic()).setPartitions(List.of(Cluster.TP.partition()));
                // By reflection: the collection's element type moved package in 4.4
                // (ImplicitLinkedHashCollection), and one build runs on every release.
                Dyn.call(Dyn.call(req, "topicPartitions"), "add", tps);
                Object res = inv(rcm, "electLeaders", req);
                records.addAll((List<?>) Dyn.call(res, "records"));
            }
            default -> throw new IllegalArgumentException("KRaft controller step: unknown handler " + handler);
        }

        Object reg = inv(rcm, "getPartition", K.TOPIC_ID, Cluster.TP.partition());
        int changes = 0;
        for (Object r : records) {
            Object msg = Dyn.call(r, "message");
            if (msg instanceof PartitionChangeRecord pcr) {
                reg = Dyn.call(reg, "merge", pcr);
                changes++;
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("handler", called);
        int l = (int) field(reg, "leader");
        out.put("leader", l < 0 ? 0 : l);
        out.put("leaderEpoch", field(reg, "leaderEpoch"));
        out.put("partitionEpoch", field(reg, "partitionEpoch"));
        out.put("isr", sorted((int[]) field(reg, "isr")));
        out.put("elr", sorted((int[]) field(reg, "elr")));
        out.put("lastKnownElr", sorted((int[]) field(reg, "lastKnownElr")));
        out.put("changes", changes);
        if (error != null) {
            out.put("error", error);
        }
        return out;
    }

    static Uuid dir(int broker) {
        return new Uuid(0x6b6d63L, 0x6469720000L + broker);
    }

    static List<Integer> sorted(int[] a) {
        List<Integer> l = new ArrayList<>();
        if (a != null) {
            for (int x : a) {
                l.add(x);
            }
        }
        l.sort(null);
        return l;
    }

    static Object field(Object o, String name) throws Exception {
        java.lang.reflect.Field f = o.getClass().getField(name);
        return f.get(o);
    }

    static Object builder(String cls) throws Exception {
        Constructor<?> c = Class.forName(cls).getDeclaredConstructor();
        c.setAccessible(true);
        return c.newInstance();
    }

    /** The declared method of c or a superclass with this name and parameter count that takes args. */
    static Method find(Class<?> c, String name, int n, Object... args) {
        for (Class<?> x = c; x != null; x = x.getSuperclass()) {
            for (Method m : x.getDeclaredMethods()) {
                if (!m.getName().equals(name) || m.getParameterCount() != n) {
                    continue;
                }
                boolean ok = true;
                for (int i = 0; i < args.length && ok; i++) {
                    Class<?> t = m.getParameterTypes()[i].isPrimitive() ? Dyn.box(m.getParameterTypes()[i]) : m.getParameterTypes()[i];
                    ok = args[i] == null || t.isInstance(args[i]);
                }
                if (ok) {
                    m.setAccessible(true);
                    return m;
                }
            }
        }
        return null;
    }

    static Object inv(Object target, String name, Object... args) throws Exception {
        Method m = find(target.getClass(), name, args.length, args);
        if (m == null) {
            throw new IllegalStateException(target.getClass().getName() + " has no method " + name + " taking " + args.length + " arguments of these types");
        }
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw Dyn.sneaky(e.getCause());
        }
    }

    /** A builder setter this release may not have (then the builder's default stands). */
    static void opt(Object target, String name, Object arg) throws Exception {
        if (find(target.getClass(), name, 1, arg) != null) {
            inv(target, name, arg);
        }
    }
}
