package dev.trafficshaper.loadtest.harness;

import dev.trafficshaper.threads.DaemonThreads;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Collects lines and writes them as numbered objects ({@code <prefix>-00001.jsonl}, ...): one object
 * per {@code maxLines} lines, and whatever is waiting every {@code flushEveryMillis}. Objects are
 * never rewritten, so S3 holds every flushed batch even if the writer dies; lines not yet flushed
 * die with it and their requests count as lost, never as succeeded.
 */
public final class BatchedObjectSink implements OutcomeSink {

    private final ObjectStore store;
    private final String keyPrefix;
    private final int maxLines;
    private final ScheduledExecutorService timer;
    private final List<String> waiting = new ArrayList<>();
    private int sequence;
    private boolean closed;

    private BatchedObjectSink(ObjectStore store, String keyPrefix, int maxLines, long flushEveryMillis) {
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.maxLines = maxLines;
        if (flushEveryMillis > 0) {
            this.timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("outcome-flush"));
            timer.scheduleWithFixedDelay(this::flushQuietly, flushEveryMillis, flushEveryMillis,
                    TimeUnit.MILLISECONDS);
        } else {
            this.timer = null;
        }
    }

    /**
     * @param keyPrefix        e.g. {@code outcomes/direct/w3-window0}; objects get {@code -NNNNN.jsonl}
     * @param flushEveryMillis wall time between timed flushes; 0 for none
     */
    public static BatchedObjectSink create(ObjectStore store, String keyPrefix, int maxLines, long flushEveryMillis) {
        if (maxLines < 1 || flushEveryMillis < 0) {
            throw new IllegalArgumentException("maxLines must be positive and flushEveryMillis not negative");
        }
        return new BatchedObjectSink(store, keyPrefix, maxLines, flushEveryMillis);
    }

    @Override
    public void write(OutcomeLine line) {
        List<String> full = null;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the sink is closed");
            }
            waiting.add(LoadTestJson.line(line));
            if (waiting.size() >= maxLines) {
                full = take();
            }
        }
        if (full != null) {
            putBatch(full);
        }
    }

    @Override
    public void flush() {
        List<String> batch;
        synchronized (this) {
            batch = take();
        }
        if (batch != null) {
            putBatch(batch);
        }
    }

    private void flushQuietly() {
        try {
            flush();
        } catch (RuntimeException e) {
            System.err.println("outcome flush to " + store.describe() + " failed, retrying at the next: " + e);
        }
    }

    /** The waiting lines with their object's number, or null when nothing waits. */
    private List<String> take() {
        if (waiting.isEmpty()) {
            return null;
        }
        List<String> batch = new ArrayList<>(waiting.size() + 1);
        batch.add(String.format(Locale.ROOT, "%s-%05d.jsonl", keyPrefix, ++sequence));
        batch.addAll(waiting);
        waiting.clear();
        return batch;
    }

    private void putBatch(List<String> batch) {
        StringBuilder text = new StringBuilder();
        for (String line : batch.subList(1, batch.size())) {
            text.append(line).append('\n');
        }
        try {
            store.put(batch.get(0), text.toString().getBytes(StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            synchronized (this) {
                waiting.addAll(0, batch.subList(1, batch.size()));
            }
            throw e;
        }
    }

    @Override
    public void close() {
        if (timer != null) {
            DaemonThreads.shutdown(timer, 1_000);
        }
        flush();
        synchronized (this) {
            closed = true;
        }
    }
}
