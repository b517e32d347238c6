package dev.trafficshaper.lifecycle;

import dev.trafficshaper.threads.DaemonThreads;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Dispatches from a bounded pool, so the drainer's one thread never waits on a dispatch call.
 *
 * <p>Why: a dispatch is a network call (an asynchronous Lambda invoke answers in tens of
 * milliseconds); made inline, it caps a drainer at 1 ÷ latency admissions a second, below a
 * 2,000 RPM model's 33/s at 30 ms. With {@code threads} calls in flight the cap is threads ÷
 * latency (64 ÷ 30 ms ≈ 2,100/s). The hand-off queue holds {@code threads} more; when it is full the
 * drainer waits for room (backpressure: a call that cannot start does not pile up unseen). A failed
 * call is tried again after a pause, up to {@code attempts} times in all; the Bedrock Processor's
 * ADMITTED → INVOKING claim makes a repeat harmless. A dispatch that still failed is reported to
 * {@code onGivenUp}; its request stays ADMITTED until the workflow's timeout finalizes it.
 */
public final class ConcurrentDispatch implements InvocationDispatch, AutoCloseable {

    /** Told of a dispatch that failed every attempt. */
    public interface GivenUp {
        void dispatchGivenUp(String modelKey, String requestId, RuntimeException lastFailure);
    }

    private final InvocationDispatch target;
    private final ThreadPoolExecutor pool;
    private final int attempts;
    private final long retryPauseMillis;
    private final GivenUp onGivenUp;
    private int outstanding;

    private ConcurrentDispatch(InvocationDispatch target, int threads, int attempts, long retryPauseMillis,
                               GivenUp onGivenUp) {
        if (threads < 1 || attempts < 1 || retryPauseMillis < 0) {
            throw new IllegalArgumentException("threads and attempts must be positive, the pause not negative");
        }
        this.target = target;
        this.attempts = attempts;
        this.retryPauseMillis = retryPauseMillis;
        this.onGivenUp = onGivenUp;
        BlockingQueue<Runnable> handOff = new ArrayBlockingQueue<>(threads);
        this.pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, handOff,
                DaemonThreads.factory("dispatch"), (task, executor) -> {
                    try {
                        executor.getQueue().put(task);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new RejectedExecutionException("interrupted while waiting to dispatch", e);
                    }
                });
        pool.allowCoreThreadTimeOut(true);
    }

    /** {@code threads} dispatch calls at once, 3 attempts 200 ms apart. */
    public static ConcurrentDispatch of(InvocationDispatch target, int threads, GivenUp onGivenUp) {
        return new ConcurrentDispatch(target, threads, 3, 200, onGivenUp);
    }

    public static ConcurrentDispatch of(InvocationDispatch target, int threads, int attempts, long retryPauseMillis,
                                        GivenUp onGivenUp) {
        return new ConcurrentDispatch(target, threads, attempts, retryPauseMillis, onGivenUp);
    }

    @Override
    public void dispatch(String modelKey, String requestId) {
        synchronized (this) {
            outstanding++;
        }
        try {
            pool.execute(() -> {
                try {
                    send(modelKey, requestId);
                } finally {
                    done();
                }
            });
        } catch (RejectedExecutionException e) {
            done();
            throw e;
        }
    }

    @Override
    public synchronized void flush() throws InterruptedException {
        while (outstanding > 0) {
            wait();
        }
    }

    private synchronized void done() {
        if (--outstanding == 0) {
            notifyAll();
        }
    }

    private void send(String modelKey, String requestId) {
        RuntimeException last = null;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            try {
                target.dispatch(modelKey, requestId);
                return;
            } catch (RuntimeException e) {
                last = e;
                if (attempt < attempts && !pause()) {
                    break;
                }
            }
        }
        onGivenUp.dispatchGivenUp(modelKey, requestId, last);
    }

    private boolean pause() {
        try {
            Thread.sleep(retryPauseMillis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Calls handed over and not yet finished. */
    public synchronized int pending() {
        return outstanding;
    }

    /** Lets the calls handed over finish (up to {@code graceMillis}), then stops the threads. */
    public void close(long graceMillis) {
        DaemonThreads.shutdown(pool, graceMillis);
    }

    @Override
    public void close() {
        close(5_000);
    }
}
