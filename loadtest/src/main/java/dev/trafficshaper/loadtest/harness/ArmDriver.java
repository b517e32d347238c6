package dev.trafficshaper.loadtest.harness;

/**
 * One arm inside one worker: sends a scheduled request the moment it is told to and never blocks
 * the caller on the answer, so arrivals keep to the schedule whatever the endpoint does (open
 * loop). It writes what it learns to the worker's sink.
 */
public interface ArmDriver extends AutoCloseable {

    ArmKind kind();

    /** One round trip before the run starts, so the first requests do not pay for class loading or TLS. */
    void warmUp();

    /** Sends {@code request}, due at {@code scheduledMillis} on the run clock; returns at once. */
    void send(ScheduledRequest request, long scheduledMillis);

    /**
     * Waits until nothing this driver sent is waiting for an answer here, or until the run clock
     * shows {@code stopAtMillis}. Returns how many are still waiting.
     */
    int awaitIdle(long stopAtMillis) throws InterruptedException;

    @Override
    void close();
}
