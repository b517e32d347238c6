package dev.trafficshaper.lifecycle;

import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.threads.DaemonThreads;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * {@link InlineCalls} on a bounded pool of threads, one per call in flight.
 *
 * <p>Why threads, not an asynchronous client: a call is the processor's whole sequence (claim,
 * body read, Bedrock, result and status writes, the workflow's resume), each step a blocking port
 * call; a thread per call runs that sequence unchanged. A call spends its time waiting on the
 * network, so {@code threads} calls cost the drainer's invocation little besides their stacks; the
 * drainer's duration is shared by all of them, where each asynchronous dispatch is a Bedrock
 * Processor invocation billed for its whole wait. No hand-off queue: with every thread busy a call
 * is refused at once and goes the asynchronous way, so a call never waits behind another unseen.
 *
 * <p>A call that throws (a store unreachable mid-sequence) is reported with no record, and the
 * drainer reads the request's status as it reads an asynchronous dispatch; the sweeper finishes
 * whatever the call left behind.
 */
public final class ThreadedInlineCalls implements InlineCalls, AutoCloseable {

    private final InvocationService invocations;
    private final ThreadPoolExecutor pool;
    private final Map<String, Integer> running = new HashMap<>();

    private ThreadedInlineCalls(InvocationService invocations, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be positive, was " + threads);
        }
        this.invocations = invocations;
        this.pool = new ThreadPoolExecutor(0, threads, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                DaemonThreads.factory("inline-call"));
    }

    /** At most {@code threads} calls at once, each through {@code invocations} (which holds the model invoker). */
    public static ThreadedInlineCalls create(InvocationService invocations, int threads) {
        return new ThreadedInlineCalls(invocations, threads);
    }

    @Override
    public boolean tryStart(String modelKey, String requestId, CallEnded onEnd) {
        synchronized (this) {
            running.merge(modelKey, 1, Integer::sum);
        }
        try {
            pool.execute(() -> {
                RequestRecord left = null;
                long reachedBy = InvocationService.Ended.NOT_CALLED;
                try {
                    InvocationService.Ended ended = invocations.processToEnd(requestId);
                    left = ended.record();
                    reachedBy = ended.reachedByMillis();
                } catch (RuntimeException e) {
                    // reported without a record: the drainer reads the request's status instead
                } finally {
                    try {
                        onEnd.ended(requestId, left, reachedBy);
                    } finally {
                        ended(modelKey);
                    }
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            ended(modelKey);
            return false;
        }
    }

    @Override
    public synchronized void awaitCalls(String modelKey) throws InterruptedException {
        while (running.getOrDefault(modelKey, 0) > 0) {
            wait();
        }
    }

    /** Calls of {@code modelKey} in flight now. */
    public synchronized int running(String modelKey) {
        return running.getOrDefault(modelKey, 0);
    }

    private synchronized void ended(String modelKey) {
        if (running.merge(modelKey, -1, Integer::sum) <= 0) {
            running.remove(modelKey);
            notifyAll();
        }
    }

    /** Lets the calls in flight finish (up to {@code graceMillis}), then stops the threads. */
    public void close(long graceMillis) {
        DaemonThreads.shutdown(pool, graceMillis);
    }

    @Override
    public void close() {
        close(5_000);
    }
}
