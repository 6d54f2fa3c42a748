package kmc.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader and writer for the harness's input and output (the harness brings no JSON
 * library of its own, so that its classpath is the Kafka release's). Values are Map (objects, in
 * order), List, String, Long, Boolean and null.
 */
final class Json {
    private Json() {}

    static Object parse(String s) {
        Json.P p = new Json.P(s);
        Object v = p.value();
        p.ws();
        if (p.i != s.length()) {
            throw p.err("unexpected data after the value");
        }
        return v;
    }

    private static final class P {
        final String s;
        int i;

        P(String s) {
            this.s = s;
        }

        IllegalArgumentException err(String what) {
            return new IllegalArgumentException("input JSON at byte " + i + ": " + what);
        }

        void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        }

        Object value() {
            ws();
            if (i >= s.length()) throw err("unexpected end");
            char c = s.charAt(i);
            switch (c) {
                case '{': {
                    i++;
                    Map<String, Object> m = new LinkedHashMap<>();
                    ws();
                    if (s.charAt(i) == '}') {
                        i++;
                        return m;
                    }
                    while (true) {
                        ws();
                        String k = str();
                        ws();
                        if (s.charAt(i++) != ':') throw err("want ':'");
                        m.put(k, value());
                        ws();
                        char d = s.charAt(i++);
                        if (d == '}') return m;
                        if (d != ',') throw err("want ',' or '}'");
                    }
                }
                case '[': {
                    i++;
                    List<Object> l = new ArrayList<>();
                    ws();
                    if (s.charAt(i) == ']') {
                        i++;
                        return l;
                    }
                    while (true) {
                        l.add(value());
                        ws();
                        char d = s.charAt(i++);
                        if (d == ']') return l;
                        if (d != ',') throw err("want ',' or ']'");
                    }
                }
                case '"':
                    return str();
                case 't':
                    i += 4;
                    return Boolean.TRUE;
                case 'f':
                    i += 5;
                    return Boolean.FALSE;
                case 'n':
                    i += 4;
                    return null;
                default: {
                    int j = i;
                    while (i < s.length() && "+-0123456789".indexOf(s.charAt(i)) >= 0) i++;
                    if (j == i) throw err("unexpected '" + c + "'");
                    return Long.parseLong(s.substring(j, i));
                }
            }
        }

        String str() {
            if (s.charAt(i) != '"') throw err("want a string");
            i++;
            StringBuilder b = new StringBuilder();
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n' -> b.append('\n');
                        case 't' -> b.append('\t');
                        case 'r' -> b.append('\r');
                        case 'b' -> b.append('\b');
                        case 'f' -> b.append('\f');
                        case 'u' -> {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                            i += 4;
                        }
                        default -> b.append(e);
                    }
                } else {
                    b.append(c);
                }
            }
        }
    }

    static String write(Object v) {
        StringBuilder b = new StringBuilder();
        write(b, v);
        return b.toString();
    }

    static void write(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof String s) {
            b.append('"');
            for (char c : s.toCharArray()) {
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    default -> {
                        if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                        else b.append(c);
                    }
                }
            }
            b.append('"');
        } else if (v instanceof Map<?, ?> m) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) b.append(',');
                first = false;
                write(b, e.getKey().toString());
                b.append(':');
                write(b, e.getValue());
            }
            b.append('}');
        } else if (v instanceof Iterable<?> l) {
            b.append('[');
            boolean first = true;
            for (Object o : l) {
                if (!first) b.append(',');
                first = false;
                write(b, o);
            }
            b.append(']');
        } else {
            b.append(v);
        }
    }

    // Accessors over parsed values.

    @SuppressWarnings("unchecked")
    static Map<String, Object> obj(Object v) {
        return (Map<String, Object>) v;
    }

    @SuppressWarnings("unchecked")
    static List<Object> arr(Object v) {
        return v == null ? List.of() : (List<Object>) v;
    }

    static int i(Map<String, Object> m, String k, int def) {
        Object v = m.get(k);
        return v == null ? def : ((Number) v).intValue();
    }

    static List<Integer> ints(Object v) {
        List<Integer> out = new ArrayList<>();
        for (Object o : arr(v)) out.add(((Number) o).intValue());
        return out;
    }
}
