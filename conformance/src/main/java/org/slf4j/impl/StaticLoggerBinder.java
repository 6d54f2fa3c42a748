package org.slf4j.impl;

import org.slf4j.ILoggerFactory;
import org.slf4j.spi.LoggerFactoryBinder;

/**
 * SLF4J 1.7's binding (every served Kafka release logs through slf4j-api 1.7): Kafka's log
 * lines go to kmc.conformance.Events, which keeps the WARN and ERROR lines of each step for
 * the step's report (the non-monotonic epoch cache WARN, a fetcher's ERROR with its exception).
 */
public final class StaticLoggerBinder implements LoggerFactoryBinder {
    private static final StaticLoggerBinder SINGLETON = new StaticLoggerBinder();
    public static String REQUESTED_API_VERSION = "1.7.36";

    public static StaticLoggerBinder getSingleton() {
        return SINGLETON;
    }

    private final ILoggerFactory factory = kmc.conformance.Events::logger;

    @Override
    public ILoggerFactory getLoggerFactory() {
        return factory;
    }

    @Override
    public String getLoggerFactoryClassStr() {
        return "kmc.conformance.Events";
    }
}
