package dev.trafficshaper.loadtest.shaper;

import dev.trafficshaper.lifecycle.InlineCalls;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The drainer's own calls in virtual time ({@code DispatchMode.INLINE}): a call starts the moment
 * the drainer hands it over — no asynchronous invoke, no cold start — runs the Bedrock Processor's
 * steps through {@link ProductionShaper}, and ends when the simulated Bedrock has answered and the
 * outcome is written. Each call belongs to the drainer invocation that started it: that invocation's
 * instance stays busy (billed) until its last call ends, and when the invocation crashes its calls
 * die with it — the request stays {@code INVOKING} for the sweeper to end, as on AWS.
 *
 * <p>{@link #awaitCalls} returns at once: in virtual time the drain returns to the event loop, and
 * its invocation is freed when its calls end ({@link Invocation#whenIdle}).
 */
final class SimulatedInlineCalls implements InlineCalls {

    /** Starts one call's steps now, for {@code owner}; ends it with {@link Invocation#ended} and {@code onEnd} if the owner still runs. */
    interface CallRunner {
        void start(String requestId, Invocation owner, CallEnded onEnd);
    }

    /** One Queue Processor invocation's calls. */
    static final class Invocation {
        private int running;
        private boolean crashed;
        private Runnable whenIdle;

        boolean alive() {
            return !crashed;
        }

        void ended() {
            running--;
            if (running == 0 && whenIdle != null) {
                Runnable free = whenIdle;
                whenIdle = null;
                free.run();
            }
        }

        /** Runs {@code free} once no call of this invocation is running (now, if none is). */
        void whenIdle(Runnable free) {
            if (running == 0 || crashed) {
                free.run();
            } else {
                whenIdle = free;
            }
        }

        /** The process died: its calls end nowhere. */
        void crash() {
            crashed = true;
        }
    }

    private final int capacity;
    private final CallRunner runner;
    private final Deque<Invocation> current = new ArrayDeque<>();
    private long started;

    SimulatedInlineCalls(int capacity, CallRunner runner) {
        this.capacity = capacity;
        this.runner = runner;
    }

    /** The invocation now draining; calls started until {@link #leave} are its. */
    void enter(Invocation invocation) {
        current.push(invocation);
    }

    void leave() {
        current.pop();
    }

    long started() {
        return started;
    }

    @Override
    public boolean tryStart(String modelKey, String requestId, CallEnded onEnd) {
        Invocation owner = current.peek();
        if (owner == null || owner.running >= capacity) {
            return false;
        }
        owner.running++;
        started++;
        runner.start(requestId, owner, onEnd);
        return true;
    }

    @Override
    public void awaitCalls(String modelKey) {
        // the invocation is freed when its calls end (see the class comment)
    }
}
