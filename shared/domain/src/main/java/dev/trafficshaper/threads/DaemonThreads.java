package dev.trafficshaper.threads;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads for the in-process servers (local runtime, HTTP servers, simulator, demo): daemons, so
 * a process that is interrupted or times out never stays alive for a pool, and numbered by name
 * so a thread dump says whose they are.
 */
public final class DaemonThreads {

    private DaemonThreads() {
    }

    /** Daemon threads named {@code prefix-1}, {@code prefix-2}, … */
    public static ThreadFactory factory(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * At most {@code threads} daemon threads, idle ones retired after 30 s, work beyond them queued:
     * the pool bounds concurrency without holding threads while nothing happens.
     */
    public static ExecutorService boundedPool(String prefix, int threads) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), factory(prefix));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /**
     * Stops {@code executor}: no new work, work in progress gets up to {@code graceMillis} to finish,
     * then it is interrupted.
     */
    public static void shutdown(ExecutorService executor, long graceMillis) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(graceMillis, TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
