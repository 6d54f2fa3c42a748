package kmc.conformance;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.helpers.FormattingTuple;
import org.slf4j.helpers.MarkerIgnoringBase;
import org.slf4j.helpers.MessageFormatter;

/** The WARN and ERROR lines Kafka's classes log during one step, in order. */
public final class Events {
    private Events() {}

    /**
     * The lines of the trace the current thread works for: set by the thread that runs a trace
     * and inherited by the fetcher threads it starts, so that traces run side by side keep
     * their own lines.
     */
    private static final InheritableThreadLocal<List<String>> lines = new InheritableThreadLocal<>();
    static volatile boolean debug = System.getenv("KMC_CONFORM_DEBUG") != null;

    /** Starts the current thread's (and its future children's) list of lines. */
    static void begin() {
        lines.set(java.util.Collections.synchronizedList(new ArrayList<>()));
    }

    static void add(String s) {
        List<String> l = lines.get();
        if (l != null) {
            l.add(s);
        }
    }

    static List<String> drain() {
        List<String> l = lines.get();
        if (l == null) {
            return new ArrayList<>();
        }
        synchronized (l) {
            List<String> out = new ArrayList<>(l);
            l.clear();
            return out;
        }
    }

    public static Logger logger(String name) {
        return new Log(name);
    }

    private static final class Log extends MarkerIgnoringBase {
        private static final long serialVersionUID = 1L;

        Log(String name) {
            this.name = name;
        }

        private void put(String level, String msg, Throwable t) {
            String s = level + " " + shortName() + ": " + msg;
            if (t != null) {
                s += " (" + t.getClass().getSimpleName() + (t.getMessage() != null ? ": " + t.getMessage() : "") + ")";
            }
            if (level.equals("WARN") || level.equals("ERROR")) {
                add(s);
            }
            if (debug) {
                System.err.println(s);
            }
        }

        private String shortName() {
            int i = name.lastIndexOf('.');
            return i < 0 ? name : name.substring(i + 1);
        }

        private void fmt(String level, String f, Object... args) {
            FormattingTuple ft = MessageFormatter.arrayFormat(f, args);
            put(level, ft.getMessage(), ft.getThrowable());
        }

        public boolean isTraceEnabled() { return false; }
        public void trace(String msg) {}
        public void trace(String f, Object a) {}
        public void trace(String f, Object a, Object b) {}
        public void trace(String f, Object... a) {}
        public void trace(String msg, Throwable t) {}
        public boolean isDebugEnabled() { return false; }
        public void debug(String msg) {}
        public void debug(String f, Object a) {}
        public void debug(String f, Object a, Object b) {}
        public void debug(String f, Object... a) {}
        public void debug(String msg, Throwable t) {}
        public boolean isInfoEnabled() { return debug; }
        public void info(String msg) { if (debug) put("INFO", msg, null); }
        public void info(String f, Object a) { if (debug) fmt("INFO", f, a); }
        public void info(String f, Object a, Object b) { if (debug) fmt("INFO", f, a, b); }
        public void info(String f, Object... a) { if (debug) fmt("INFO", f, a); }
        public void info(String msg, Throwable t) { if (debug) put("INFO", msg, t); }
        public boolean isWarnEnabled() { return true; }
        public void warn(String msg) { put("WARN", msg, null); }
        public void warn(String f, Object a) { fmt("WARN", f, a); }
        public void warn(String f, Object a, Object b) { fmt("WARN", f, a, b); }
        public void warn(String f, Object... a) { fmt("WARN", f, a); }
        public void warn(String msg, Throwable t) { put("WARN", msg, t); }
        public boolean isErrorEnabled() { return true; }
        public void error(String msg) { put("ERROR", msg, null); }
        public void error(String f, Object a) { fmt("ERROR", f, a); }
        public void error(String f, Object a, Object b) { fmt("ERROR", f, a, b); }
        public void error(String f, Object... a) { fmt("ERROR", f, a); }
        public void error(String msg, Throwable t) { put("ERROR", msg, t); }
    }
}
