package dev.trafficshaper.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Delayed;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler whose delayed tasks wait for the test: it records each requested delay and runs a
 * task only when the test says so, so a test of polling never waits the delays it checks.
 */
final class ManualScheduler extends ScheduledThreadPoolExecutor {

    private static final Task FINISHED = new Task(() -> { }, Duration.ZERO);

    private final BlockingQueue<Task> tasks = new LinkedBlockingQueue<>();
    private final List<Duration> delays = new CopyOnWriteArrayList<>();

    ManualScheduler() {
        super(1);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        if (isShutdown()) {
            throw new RejectedExecutionException("shut down");
        }
        Task task = new Task(command, Duration.ofNanos(unit.toNanos(delay)));
        delays.add(task.delay);
        tasks.add(task);
        return task;
    }

    /** The client schedules only runnables; anything else would bypass this scheduler's control. */
    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("only schedule(Runnable, ...) is controlled by the test");
    }

    /** Every delay the code under test asked for, in order. */
    List<Duration> delays() {
        return List.copyOf(delays);
    }

    /** The next task the code under test schedules (waiting for it, at most 5 s), not yet run. */
    Task nextTask() throws InterruptedException {
        Task task = tasks.poll(5, TimeUnit.SECONDS);
        if (task == null || task == FINISHED) {
            throw new AssertionError("expected a scheduled task, found " + (task == null ? "none" : "the end"));
        }
        return task;
    }

    /** Runs each task as soon as it is scheduled, as if its delay had passed, until {@code future} is done. */
    void runUntilDone(CompletableFuture<?> future) throws InterruptedException {
        future.whenComplete((result, error) -> tasks.add(FINISHED));
        while (true) {
            Task task = tasks.poll(5, TimeUnit.SECONDS);
            if (task == null) {
                throw new AssertionError("neither a scheduled task nor the end of the future within 5 s");
            }
            if (task == FINISHED) {
                return;
            }
            task.run();
        }
    }

    static final class Task implements ScheduledFuture<Object> {
        final Duration delay;
        private final Runnable command;
        private volatile boolean cancelled;
        private volatile boolean ran;

        Task(Runnable command, Duration delay) {
            this.command = command;
            this.delay = delay;
        }

        void run() {
            if (!cancelled) {
                ran = true;
                command.run();
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(delay);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            cancelled = true;
            return !ran;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return cancelled || ran;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }
    }
}
