package dev.trafficshaper.loadtest.harness;

/** Where outcome lines go. Implementations are thread-safe: every arm of a worker writes to one sink. */
public interface OutcomeSink extends AutoCloseable {

    void write(OutcomeLine line);

    /** Makes every line written so far durable (on disk, or an object in S3). */
    void flush();

    /** Flushes and releases the sink. */
    @Override
    void close();
}
