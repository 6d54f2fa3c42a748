package kmc.conformance;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reflection over Kafka's classes. Kafka moves and retypes its internals from release to release
 * (kafka.log.UnifiedLog in Scala up to 4.0, org.apache.kafka.storage.internals.log.UnifiedLog in
 * Java from 4.1; scala.Option against java.util.Optional; Partition's constructor gains and loses
 * parameters), so the harness calls them by name and fills parameters by type. Scala collections
 * and options are converted to and from Java's as a parameter or result needs.
 */
final class Dyn {
    private Dyn() {}

    /** The class called name, or null. */
    static Class<?> cls(String... names) {
        for (String n : names) {
            try {
                return Class.forName(n);
            } catch (ClassNotFoundException e) {
                // next
            }
        }
        return null;
    }

    static Class<?> clsOrThrow(String... names) {
        Class<?> c = cls(names);
        if (c == null) {
            throw new IllegalStateException("none of the classes " + String.join(", ", names) + " is in this Kafka release");
        }
        return c;
    }

    /** Calls the public method name of target with args (converted to its parameter types). */
    static Object call(Object target, String name, Object... args) {
        return invoke(target.getClass(), target, name, args);
    }

    static Object callStatic(Class<?> c, String name, Object... args) {
        return invoke(c, null, name, args);
    }

    /**
     * Calls target.name with args followed by the Scala default values of the parameters it has
     * beyond them (name$default$k), as a Scala caller that leaves them out does: a parameter
     * with a default added in a later release (Partition.appendRecordsToLeader's
     * transactionVersion, 4.2) gets Kafka's own default.
     */
    static Object callDefaults(Object target, String name, Object... args) {
        for (Method m : target.getClass().getMethods()) {
            if (!m.getName().equals(name) || m.getParameterCount() <= args.length) {
                continue;
            }
            Object[] all = java.util.Arrays.copyOf(args, m.getParameterCount());
            boolean ok = true;
            for (int k = args.length; k < all.length && ok; k++) {
                try {
                    all[k] = target.getClass().getMethod(name + "$default$" + (k + 1)).invoke(target);
                } catch (ReflectiveOperationException e) {
                    ok = false;
                }
            }
            if (ok) {
                return call(target, name, all);
            }
        }
        return call(target, name, args);
    }

    /** Whether target has a public method name with n parameters. */
    static boolean has(Object target, String name, int n) {
        return !candidates(target.getClass(), name, n, false).isEmpty();
    }

    /** Whether class c has a public static method name with n parameters. */
    static boolean hasStatic(Class<?> c, String name, int n) {
        for (Method m : c.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == n && Modifier.isStatic(m.getModifiers())) {
                return true;
            }
        }
        return false;
    }

    /** The static field name of the class called cls. */
    static Object staticField2(String cls, String name) {
        try {
            return clsOrThrow(cls).getField(name).get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(cls + "." + name, e);
        }
    }

    /** Methods by class, name, parameter count and staticness, sorted by signature. */
    private static final java.util.concurrent.ConcurrentHashMap<String, List<Method>> methods = new java.util.concurrent.ConcurrentHashMap<>();

    private static List<Method> candidates(Class<?> c, String name, int n, boolean statics) {
        String key = c.getName() + "#" + name + "#" + n + "#" + statics;
        return methods.computeIfAbsent(key, x -> {
            List<Method> cands = new ArrayList<>();
            for (Method m : c.getMethods()) {
                if (m.getName().equals(name) && m.getParameterCount() == n && (!statics || Modifier.isStatic(m.getModifiers()))) {
                    m.setAccessible(true);
                    cands.add(m);
                }
            }
            cands.sort(java.util.Comparator.comparing(Dyn::sig)); // the same overload on every run
            return cands;
        });
    }

    private static Object invoke(Class<?> c, Object target, String name, Object[] args) {
        List<Method> cands = candidates(c, name, args.length, target == null);
        if (cands.isEmpty()) {
            throw new IllegalStateException(c.getName() + " has no method " + name + " with " + args.length + " parameters");
        }
        RuntimeException last = null;
        for (Method m : cands) {
            Object[] conv;
            try {
                conv = convertAll(m.getParameterTypes(), args);
            } catch (IllegalArgumentException e) {
                last = e;
                continue;
            }
            try {
                return m.invoke(target, conv);
            } catch (InvocationTargetException e) {
                throw sneaky(e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException(c.getName() + "." + name + ": no overload takes these arguments", last);
    }

    private static Object[] convertAll(Class<?>[] types, Object[] args) {
        Object[] out = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            out[i] = convert(args[i], types[i]);
        }
        return out;
    }

    /** value converted to type t: Java and Scala options and collections, boxed numbers. */
    @SuppressWarnings("unchecked")
    static Object convert(Object v, Class<?> t) {
        if (v == null) {
            if (t.isPrimitive()) {
                throw new IllegalArgumentException("null for " + t);
            }
            return null;
        }
        if (t.isPrimitive()) {
            t = box(t);
        }
        if (t.isInstance(v)) {
            return v;
        }
        if (t == Long.class && v instanceof Number n) {
            return n.longValue();
        }
        if (t == Integer.class && v instanceof Number n) {
            return n.intValue();
        }
        if (t == Short.class && v instanceof Number n) {
            return n.shortValue();
        }
        if (t == Byte.class && v instanceof Number n) {
            return n.byteValue();
        }
        if (t == scala.Option.class && v instanceof Optional<?> o) {
            return scala.Option.apply(o.orElse(null));
        }
        if (t == Optional.class && v instanceof scala.Option<?> o) {
            return o.isDefined() ? Optional.of(o.get()) : Optional.empty();
        }
        if (scala.collection.Map.class.isAssignableFrom(t) && v instanceof Map<?, ?> m) {
            return scala.jdk.javaapi.CollectionConverters.asScala((Map<Object, Object>) m);
        }
        if (scala.collection.Set.class.isAssignableFrom(t) && v instanceof Set<?> s) {
            return scala.jdk.javaapi.CollectionConverters.asScala((Set<Object>) s);
        }
        if (t == scala.collection.immutable.List.class && v instanceof List<?> l) {
            return scala.jdk.javaapi.CollectionConverters.asScala((List<Object>) l).toList();
        }
        if (scala.collection.Seq.class.isAssignableFrom(t) && v instanceof List<?> l) {
            return scala.jdk.javaapi.CollectionConverters.asScala((List<Object>) l).toSeq();
        }
        if (Map.class.isAssignableFrom(t) && v instanceof scala.collection.Map<?, ?> m) {
            return scala.jdk.javaapi.CollectionConverters.asJava((scala.collection.Map<Object, Object>) m);
        }
        if (Set.class.isAssignableFrom(t) && v instanceof scala.collection.Set<?> s) {
            return scala.jdk.javaapi.CollectionConverters.asJava((scala.collection.Set<Object>) s);
        }
        throw new IllegalArgumentException(v.getClass().getName() + " is not a " + t.getName());
    }

    static Class<?> box(Class<?> t) {
        if (t == int.class) return Integer.class;
        if (t == long.class) return Long.class;
        if (t == boolean.class) return Boolean.class;
        if (t == short.class) return Short.class;
        if (t == byte.class) return Byte.class;
        if (t == double.class) return Double.class;
        if (t == float.class) return Float.class;
        if (t == char.class) return Character.class;
        return t;
    }

    /** An Option or Optional unwrapped: its value, or null. */
    static Object unopt(Object o) {
        if (o instanceof Optional<?> x) {
            return x.orElse(null);
        }
        if (o instanceof scala.Option<?> x) {
            return x.isDefined() ? x.get() : null;
        }
        return o;
    }

    /** A Java or Scala collection as a Java list. */
    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        if (o instanceof Collection<?> c) {
            return new ArrayList<>((Collection<Object>) c);
        }
        if (o instanceof Iterable<?> it) {
            List<Object> out = new ArrayList<>();
            it.forEach(out::add);
            return out;
        }
        if (o instanceof scala.collection.IterableOnce<?> s) {
            List<Object> out = new ArrayList<>();
            scala.jdk.javaapi.CollectionConverters.asJava(((scala.collection.IterableOnce<Object>) s).iterator())
                    .forEachRemaining(out::add);
            return out;
        }
        throw new IllegalArgumentException("not a collection: " + o.getClass().getName());
    }

    /** The value of public field name of target (a Java record accessor or a Scala val also work). */
    static Object get(Object target, String name) {
        try {
            Field f = target.getClass().getField(name);
            return f.get(target);
        } catch (NoSuchFieldException e) {
            return call(target, name);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Sets target.name(value) when the method exists (fluent message setters); returns target. */
    static Object setIf(Object target, String name, Object value) {
        List<Method> ms = new ArrayList<>(List.of(target.getClass().getMethods()));
        ms.sort(java.util.Comparator.comparing(Dyn::sig));
        for (Method m : ms) {
            if (m.getName().equals(name) && m.getParameterCount() == 1) {
                try {
                    m.invoke(target, convert(value, m.getParameterTypes()[0]));
                    return target;
                } catch (IllegalArgumentException e) {
                    // another overload
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return target;
    }

    /**
     * Instantiates c with its public constructor of the most parameters (or with n parameters
     * when n >= 0), filling each parameter from fill, which gets the parameter's type and its
     * index among the parameters of that type.
     */
    static Object construct(Class<?> c, int n, Filler fill) {
        return construct(c, n, k -> true, fill);
    }

    /**
     * construct, among the constructors that ok accepts. Candidates are taken in the order of
     * their signatures, so that the choice does not depend on the order reflection lists them.
     */
    static Object construct(Class<?> c, int n, java.util.function.Predicate<Constructor<?>> ok, Filler fill) {
        Constructor<?> best = null;
        List<Constructor<?>> ks = new ArrayList<>(List.of(c.getConstructors()));
        ks.sort(java.util.Comparator.comparing(Dyn::sig));
        for (Constructor<?> k : ks) {
            if (!ok.test(k)) {
                continue;
            }
            if ((n < 0 && (best == null || k.getParameterCount() > best.getParameterCount())) || (n >= 0 && best == null && k.getParameterCount() == n)) {
                best = k;
            }
        }
        if (best == null) {
            throw new IllegalStateException(c.getName() + " has no public constructor" + (n >= 0 ? " with " + n + " parameters" : ""));
        }
        try {
            return best.newInstance(fillArgs(best, fill));
        } catch (InvocationTargetException e) {
            throw sneaky(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Calls the static method name of c with the most parameters, filled as construct does. */
    static Object callFilled(Class<?> c, Object target, String name, Filler fill) {
        Method best = null;
        List<Method> ms = new ArrayList<>(List.of(c.getMethods()));
        ms.sort(java.util.Comparator.comparing(Dyn::sig));
        for (Method m : ms) {
            if (m.getName().equals(name) && (target != null || Modifier.isStatic(m.getModifiers()))
                    && (best == null || m.getParameterCount() > best.getParameterCount())) {
                best = m;
            }
        }
        if (best == null) {
            throw new IllegalStateException(c.getName() + " has no method " + name);
        }
        try {
            return best.invoke(target, fillArgs(best, fill));
        } catch (InvocationTargetException e) {
            throw sneaky(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object[] fillArgs(Executable e, Filler fill) {
        Class<?>[] types = e.getParameterTypes();
        Object[] args = new Object[types.length];
        Map<Class<?>, Integer> seen = new HashMap<>();
        for (int i = 0; i < types.length; i++) {
            int k = seen.merge(types[i], 1, Integer::sum) - 1;
            args[i] = convert(fill.fill(types[i], k), types[i]);
        }
        return args;
    }

    /** Fills one parameter of a constructor or method. */
    interface Filler {
        Object fill(Class<?> type, int index);
    }

    /** A signature as text, for error messages. */
    static String sig(Executable e) {
        StringBuilder b = new StringBuilder(e.getName()).append('(');
        for (Class<?> t : e.getParameterTypes()) {
            if (b.charAt(b.length() - 1) != '(') b.append(", ");
            b.append(t.getName());
        }
        return b.append(')').toString();
    }

    @SuppressWarnings("unchecked")
    static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
        throw (T) t;
    }
}
