package kmc.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.apache.kafka.common.protocol.Errors;

/**
 * What Kafka's objects hold after a step, in the model's terms (model/encode.go's variables):
 * per broker its status, role, leader, leader and partition epochs, fetch state and
 * lastFetchedEpoch (from its ReplicaFetcherThread's PartitionFetchState), log entries (read back
 * from the segment file: base offset, partitionLeaderEpoch, record id), high watermark, log end
 * offset, leader-epoch cache entries and, for a leader, the Partition's ISR state; then the
 * fetch-plane messages in flight and the AlterPartition requests not yet at the controller.
 * Kafka's -1 (no epoch, no leader, unknown offset) is the model's 0.
 */
final class Observe {
    private Observe() {}

    static List<Map<String, Object>> brokers(Cluster c) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int b = 1; b <= c.n; b++) {
            out.add(broker(c, c.brokers[b]));
        }
        return out;
    }

    static int nz(long v) {
        return v < 0 ? 0 : (int) v;
    }

    static Map<String, Object> broker(Cluster c, Cluster.Broker br) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", br.id);
        m.put("status", br.up ? "up" : "down");
        String role = "none";
        int leader = 0;
        int epoch = 0;
        int pepoch = 0;
        Object p = br.partition;
        if (p != null) {
            Object lid = Dyn.unopt(Dyn.call(p, "leaderReplicaIdOpt"));
            if ((boolean) Dyn.call(p, "isLeader")) {
                role = "leader";
            } else if (lid != null) {
                role = "follower";
            }
            leader = lid == null ? 0 : nz(((Number) lid).longValue());
            epoch = nz((int) Dyn.call(p, "getLeaderEpoch"));
            pepoch = nz((int) Dyn.call(p, "getPartitionEpoch"));
        }
        m.put("role", role);
        m.put("leader", leader);
        m.put("leaderEpoch", epoch);
        m.put("partitionEpoch", pepoch);
        String fetch = "idle";
        int last = 0;
        Cluster.Fetcher f = br.up ? br.current() : null;
        if (f != null) {
            Object fs = Dyn.unopt(Dyn.call(f.thread, "fetchState", Cluster.TP));
            fetch = (boolean) Dyn.call(fs, "isTruncating") ? "truncating" : "fetching";
            Object le = Dyn.unopt(Dyn.call(fs, "lastFetchedEpoch"));
            last = le == null ? 0 : nz(((Number) le).longValue());
        } else if (br.up && (boolean) Dyn.call(br.failed, "contains", Cluster.TP)) {
            fetch = "failed";
        }
        m.put("fetchState", fetch);
        m.put("lastFetchedEpoch", last);
        // The log, read back from the segment file; an offset with no batch is a hole.
        List<List<Integer>> log = new ArrayList<>();
        long leo = br.logEnd();
        for (K.Batch b : K.batches(c.segmentRecords(br))) {
            while (log.size() < b.offset()) {
                log.add(List.of(0, 0));
            }
            log.add(List.of(nz(b.epoch()), b.id()));
        }
        while (log.size() < leo) {
            log.add(List.of(0, 0));
        }
        m.put("log", log);
        m.put("leo", leo);
        m.put("hw", (long) Dyn.call(br.log, "highWatermark"));
        List<List<Long>> cache = new ArrayList<>();
        for (Object e : Dyn.list(Dyn.call(br.cache(), "epochEntries"))) {
            cache.add(List.of(((Number) Dyn.get(e, "epoch")).longValue(), ((Number) Dyn.get(e, "startOffset")).longValue()));
        }
        m.put("cache", cache);
        // The leader-epoch-checkpoint file as it is on disk: the cache, or after a truncation whose
        // asynchronous write (KAFKA-16541) has not run, the cache before it.
        List<List<Long>> file = new ArrayList<>();
        java.io.File cp = new java.io.File(br.dir, "leader-epoch-checkpoint");
        try {
            List<String> lines = java.nio.file.Files.readAllLines(cp.toPath());
            for (int i = 2; i < lines.size(); i++) {
                String[] fl = lines.get(i).trim().split("\\s+");
                if (fl.length == 2) {
                    file.add(List.of(Long.parseLong(fl[0]), Long.parseLong(fl[1])));
                }
            }
        } catch (java.io.IOException e) {
            // no file yet: no entries
        }
        m.put("checkpoint", file);
        if (role.equals("leader")) {
            Object ps = Dyn.call(p, "partitionState");
            m.put("isr", ints(Dyn.call(ps, "isr")));
            m.put("maximalIsr", ints(Dyn.call(ps, "maximalIsr")));
            m.put("pending", Dyn.call(ps, "isInflight"));
            Object leso = Dyn.unopt(Dyn.call(p, "leaderEpochStartOffsetOpt"));
            m.put("leso", leso == null ? 0 : nz(((Number) leso).longValue()));
            Map<String, Object> fleo = new LinkedHashMap<>();
            for (int r = 1; r <= c.n; r++) {
                if (r == br.id) {
                    continue;
                }
                Object rep = Dyn.unopt(Dyn.call(p, "getReplica", r));
                long v = rep == null ? 0 : ((Number) Dyn.call(Dyn.call(rep, "stateSnapshot"), "logEndOffset")).longValue();
                fleo.put(Integer.toString(r), nz(v));
            }
            m.put("fleo", fleo);
        }
        return m;
    }

    static List<Integer> ints(Object set) {
        TreeSet<Integer> s = new TreeSet<>();
        for (Object o : Dyn.list(set)) {
            s.add(((Number) o).intValue());
        }
        return new ArrayList<>(s);
    }

    static List<Map<String, Object>> messages(Cluster c) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int f = 1; f <= c.n; f++) {
            Cluster.Exchange ex = c.exchanges[f];
            if (ex == null) {
                continue;
            }
            Object pd = ex.data();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("from", ex.answered ? ex.leader : ex.follower);
            m.put("to", ex.answered ? ex.follower : ex.leader);
            Object cle = Dyn.unopt(Dyn.get(pd, "currentLeaderEpoch"));
            Object lfe = Dyn.unopt(Dyn.get(pd, "lastFetchedEpoch"));
            m.put("currentLeaderEpoch", cle == null ? 0 : cle);
            m.put("fetchOffset", Dyn.get(pd, "fetchOffset"));
            if (!ex.answered) {
                m.put("type", "FetchRequest");
                m.put("lastFetchedEpoch", lfe == null ? 0 : lfe);
            } else {
                m.put("type", "FetchResponse");
                m.put("error", ex.error.name());
                m.put("highWatermark", ex.error == Errors.NONE ? ex.hw : 0);
                m.put("divergingEpoch", List.of(ex.divEpoch, ex.divOffset));
                if (ex.error == Errors.OFFSET_OUT_OF_RANGE) {
                    m.put("leaderLogEndOffset", ex.leaderLogEnd);
                }
                m.put("startPosition", ex.slice == null ? -1 : ex.sliceStart / K.UNIT);
                m.put("endPosition", ex.slice == null ? -1 : ex.sliceEnd / K.UNIT);
                List<List<Long>> recs = new ArrayList<>();
                for (K.Batch b : K.batches(K.memoryRecords(ex.copied.toByteArray()))) {
                    recs.add(List.of(b.offset(), (long) b.epoch(), (long) b.id()));
                }
                m.put("records", recs);
                m.put("readDone", ex.readDone);
            }
            out.add(m);
        }
        for (int b = 1; b <= c.n; b++) {
            Cluster.Alter a = c.brokers[b].alter;
            if (a == null || a.atController) {
                continue;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "AlterPartition");
            m.put("from", b);
            m.put("leaderEpoch", Dyn.call(a.leaderAndIsr, "leaderEpoch"));
            m.put("partitionEpoch", Dyn.call(a.leaderAndIsr, "partitionEpoch"));
            m.put("isr", ints(Dyn.call(a.leaderAndIsr, "isr")));
            out.add(m);
        }
        return out;
    }
}
