package kmc.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

import org.apache.kafka.common.utils.Time;
import org.mockito.Mockito;

/** The clock, the scheduler and the captured log lines of a harness run. */
final class Infra {
    private Infra() {}

    /** A clock that moves only when the harness moves it (Kafka's tests use MockTime). */
    static final class Clock implements Time {
        // Starts at the wall clock: a few Kafka paths read System.currentTimeMillis() (the segment
        // roll checks of 4.3 among them), which must not see record timestamps from another epoch.
        private long ms = System.currentTimeMillis();

        @Override
        public long milliseconds() {
            return ms;
        }

        @Override
        public long nanoseconds() {
            return ms * 1_000_000L;
        }

        @Override
        public void sleep(long d) {
            ms += d;
        }

        @Override
        public void waitObject(Object obj, java.util.function.Supplier<Boolean> condition, long deadlineMs) {
            if (!condition.get()) {
                throw new IllegalStateException("the harness clock cannot wait for a condition");
            }
        }

        void advance(long d) {
            ms += d;
        }
    }

    /**
     * Kafka's Scheduler (org.apache.kafka.server.util.Scheduler) as a Mockito mock: one-shot tasks
     * are queued, never run by a thread; periodic ones (producer-id expiry) are dropped. The only
     * one-shot task the harness's logs schedule is LeaderEpochFileCache's asynchronous checkpoint
     * write after a truncation (KAFKA-16541, 3.8): it runs, or is lost, at a crash, as the trace's
     * crash says (stale checkpoint entries kept or not).
     */
    static final class Sched {
        final Object mock;
        final List<Runnable> pending = new ArrayList<>();
        final List<String> names = new ArrayList<>();

        Sched() {
            Class<?> c = Dyn.clsOrThrow("org.apache.kafka.server.util.Scheduler");
            mock = Mockito.mock(c, inv -> {
                String n = inv.getMethod().getName();
                if (n.equals("schedule") || n.equals("scheduleOnce")) {
                    Object[] a = inv.getArguments();
                    long period = a.length >= 4 ? ((Number) a[3]).longValue() : -1;
                    if (period <= 0) {
                        names.add((String) a[0]);
                        pending.add((Runnable) a[1]);
                    }
                    return Mockito.mock(ScheduledFuture.class);
                }
                return Mockito.RETURNS_DEFAULTS.answer(inv);
            });
        }

        void runAll() {
            while (!pending.isEmpty()) {
                Runnable r = pending.remove(0);
                names.remove(0);
                r.run();
            }
        }

        void dropAll() {
            pending.clear();
            names.clear();
        }
    }
}
