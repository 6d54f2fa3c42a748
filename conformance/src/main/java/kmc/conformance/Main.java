package kmc.conformance;

import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.apache.kafka.common.protocol.Errors;

/**
 * The harness's entry point: java kmc.conformance.Main INPUT.json OUTPUT.jsonl.
 *
 * INPUT (written by kmc conform) holds traces: each has the configuration (brokers,
 * min_isr, max_fetch_records, record_sizes), the initial partition state of every broker, and
 * its steps, each with the model's action name and arguments as kmc prints them and the inputs
 * that come from the model's control plane (the LeaderAndIsr or AlterPartition response a broker
 * receives, the controller's live brokers and broker epochs, the record id a write carries).
 *
 * OUTPUT gets one JSON line per state (the initial one included): what Kafka's classes hold, in
 * the model's terms (per broker: status, role, leader, epochs, fetch state, lastFetchedEpoch,
 * log entries, high watermark, leader-epoch cache, the leader's ISR state; the fetch-plane
 * messages and AlterPartition requests in flight; the WARN and ERROR lines Kafka logged). A step
 * the harness cannot execute ends its trace with a line that says why ("harnessError"). kmc
 * compares the lines with the trace. Each trace runs in its own temporary folder, removed after.
 */
public final class Main {
    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--stream")) {
            stream();
            System.exit(0);
        }
        if (args.length != 2) {
            System.err.println("usage: kmc.conformance.Main INPUT.json OUTPUT.jsonl, or kmc.conformance.Main --stream");
            System.exit(2);
        }
        Map<String, Object> in = Json.obj(Json.parse(Files.readString(Path.of(args[0]), StandardCharsets.UTF_8)));
        List<Object> traces = Json.arr(in.get("traces"));
        try (BufferedWriter out = Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8)) {
            run(traces.iterator(), out);
        }
        System.exit(0);
    }

    /**
     * The streaming form, for kmc conform: one trace per line on standard input (the object a
     * trace is in INPUT's "traces"), its lines on standard output as the file form writes them,
     * traces in the order they came.
     */
    static void stream() throws Exception {
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        java.util.Iterator<Object> it = new java.util.Iterator<>() {
            String next;

            public boolean hasNext() {
                if (next == null) {
                    try {
                        next = in.readLine();
                        while (next != null && next.isBlank()) next = in.readLine();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
                return next != null;
            }

            public Object next() {
                hasNext();
                String l = next;
                next = null;
                return Json.parse(l);
            }
        };
        BufferedWriter out = new BufferedWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        run(it, out);
        out.flush();
    }

    /**
     * Runs traces side by side (each has its own folder, brokers and threads) and writes their
     * lines in trace order.
     */
    static void run(java.util.Iterator<Object> traces, BufferedWriter out) throws Exception {
        int threads = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(),
                Integer.parseInt(System.getenv().getOrDefault("KMC_CONFORM_THREADS", "2"))));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        java.util.ArrayDeque<java.util.concurrent.Future<String>> pending = new java.util.ArrayDeque<>();
        int t = 0;
        while (traces.hasNext()) {
            int idx = t++;
            Map<String, Object> tr = Json.obj(traces.next());
            pending.add(pool.submit(() -> {
                StringWriter sw = new StringWriter();
                try (BufferedWriter w = new BufferedWriter(sw)) {
                    runTrace(idx, tr, w);
                }
                return sw.toString();
            }));
            while (pending.size() > 2 * threads || (!pending.isEmpty() && pending.peek().isDone())) {
                out.write(pending.poll().get());
                out.flush();
            }
        }
        while (!pending.isEmpty()) {
            out.write(pending.poll().get());
            out.flush();
        }
        pool.shutdownNow();
    }

    static void runTrace(int t, Map<String, Object> tr, BufferedWriter out) throws IOException {
        Path dir = Files.createTempDirectory("kmc-conform-");
        Events.begin();
        Cluster c = null;
        int state = 0;
        try {
            c = new Cluster(dir.toFile(), Json.i(tr, "brokers", 3), Json.i(tr, "minIsr", 1),
                    Json.i(tr, "maxFetchRecords", 1), (String) tr.getOrDefault("recordSizes", "uniform"));
            controller(c, tr);
            for (Object o : Json.arr(tr.get("init"))) {
                Map<String, Object> b = Json.obj(o);
                c.applyPartitionState(Json.i(b, "broker", 0), Json.i(b, "leader", 0), Json.i(b, "leaderEpoch", 0),
                        Json.i(b, "partitionEpoch", 0), Json.ints(b.get("isr")));
            }
            write(out, t, 0, c, null);
            for (Object o : Json.arr(tr.get("steps"))) {
                Map<String, Object> s = Json.obj(o);
                state = Json.i(s, "state", 0);
                controller(c, s);
                // Every step takes longer than replica.lag.time.max.ms: the model abstracts time away, and
                // this timing makes a follower count as caught up only in the step it reaches the log end.
                c.clock.advance(Cluster.LAG_MAX_MS + 1);
                step(c, s);
                write(out, t, state, c, null);
            }
        } catch (Throwable e) {
            StringWriter sw = new StringWriter();
            e.printStackTrace(new PrintWriter(sw));
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("trace", t);
            m.put("state", state);
            m.put("harnessError", e.getClass().getName() + ": " + e.getMessage());
            m.put("stack", sw.toString());
            m.put("events", Events.drain());
            out.write(Json.write(m));
            out.newLine();
        } finally {
            if (c != null) {
                c.close();
            }
            try (Stream<Path> w = Files.walk(dir)) {
                w.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Map<String, Object> end = new LinkedHashMap<>();
        end.put("trace", t);
        end.put("end", true);
        out.write(Json.write(end));
        out.newLine();
    }

    static void controller(Cluster c, Map<String, Object> s) {
        if (s.containsKey("live")) {
            c.live.clear();
            c.live.addAll(Json.ints(s.get("live")));
        }
        if (s.containsKey("brokerEpochs")) {
            Json.obj(s.get("brokerEpochs")).forEach((k, v) -> c.brokerEpochs.put(Integer.parseInt(k), ((Number) v).longValue()));
        }
        c.shuttingDown.clear();
        if (s.get("shuttingDown") != null) {
            c.shuttingDown.addAll(Json.ints(s.get("shuttingDown")));
        }
    }

    static void step(Cluster c, Map<String, Object> s) throws Exception {
        String a = (String) s.get("action");
        List<Integer> x = Json.ints(s.get("args"));
        Map<String, Object> msg = s.containsKey("msg") ? Json.obj(s.get("msg")) : Map.of();
        switch (a) {
            case "LeaderAppend" -> c.leaderAppend(x.get(0), Json.i(s, "record", 0));
            case "FollowerSendFetch" -> c.followerSendFetch(x.get(0));
            case "LeaderHandleFetch" -> c.leaderHandleFetch(x.get(0), x.get(1), Json.i(s, "replicaEpoch", 1));
            case "NetworkReadRecord" -> c.networkRead(x.get(0), x.get(1), false);
            case "NetworkReadGarbage" -> c.networkRead(x.get(0), x.get(1), true);
            case "FollowerHandleFetchResponse" -> c.followerHandleFetchResponse(x.get(0));
            case "BrokerHandleLeaderAndIsr" -> {
                if (Boolean.TRUE.equals(msg.get("lapsed"))) {
                    c.applyLapsedState(x.get(0), Json.i(msg, "leaderEpoch", 0), Json.i(msg, "partitionEpoch", 0),
                            Json.ints(msg.get("isr")));
                }
                c.applyPartitionState(x.get(0), Json.i(msg, "leader", 0), Json.i(msg, "leaderEpoch", 0),
                        Json.i(msg, "partitionEpoch", 0), Json.ints(msg.get("isr")));
                if (Boolean.TRUE.equals(s.get("dropResponse"))) {
                    c.responseAfterLeaderChange(x.get(0));
                }
            }
            case "LeaderShrinkISR" -> c.leaderShrinkIsr(x.get(0), x.get(1));
            case "ControllerHandleAlterPartition" -> {
                Cluster.Alter al = c.brokers[x.get(x.size() - 1)].alter;
                if (al != null) {
                    al.atController = true;
                }
            }
            case "LeaderHandleAlterPartitionResponse" -> c.alterPartitionResponse(x.get(0), (String) msg.get("error"),
                    Json.i(msg, "leaderEpoch", 0), Json.i(msg, "partitionEpoch", 0), Json.ints(msg.get("isr")));
            case "ControllerHandleBrokerFailure", "ControllerHandleBrokerStartup", "ControllerMoveLeader", "ControllerElectPreferred" -> {
                // The controller's own step: what it decides reaches the brokers as partition state
                // (BrokerHandleLeaderAndIsr), taken from the trace.
            }
            case "BrokerCrash", "BrokerControlledShutdown", "BrokerBeginShutdown", "BrokerStop" -> {
                String status = (String) s.getOrDefault("status", "down");
                switch (status) {
                    case "down" -> c.crash(x.get(0), "clean", 0, 0, 0, 0);
                    case "closing" -> c.beginShutdown(x.get(0));
                    case "shutting down" -> c.controlledShutdown(x.get(0), Boolean.TRUE.equals(s.get("stopFetcher")),
                            Boolean.TRUE.equals(s.get("dropResponse")));
                    default -> throw new IllegalArgumentException(a + ": broker status " + status + " after the step");
                }
            }
            case "BrokerUncleanCrash" -> c.crash(x.get(0), "unclean", x.get(1), 0, x.get(2), 0);
            case "BrokerPowerLoss" -> c.crash(x.get(0), "power", x.get(1), x.get(2), x.get(3), 0);
            case "BrokerRestart" -> c.restart(x.get(0));
            case "NetworkLoseMessage" -> c.fail(x.get(0), new IOException("the fetch-plane message of broker " + x.get(0) + " was lost"));
            default -> throw new UnsupportedOperationException("the harness cannot execute " + a);
        }
    }

    static void write(BufferedWriter out, int t, int state, Cluster c, String err) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("trace", t);
        m.put("state", state);
        m.put("brokers", Observe.brokers(c));
        m.put("messages", Observe.messages(c));
        m.put("events", Events.drain());
        out.write(Json.write(m));
        out.newLine();
    }

    static String errName(Errors e) {
        return e.name();
    }
}
