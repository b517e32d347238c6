package dev.trafficshaper.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The local runtime's {@link WebhookQueue}: entries in memory, each due at a time on an injected
 * clock, played by {@link #runDue} as the Notifier plays the SQS queue on AWS — one attempt per
 * due entry, then the entry is dropped (delivered, refused, dead-lettered) or due again after the
 * {@link DeliverySchedule}'s pause. Dead-lettered entries are kept, for {@link #deadLettered()}.
 * Lost when the process ends, as all in-memory state is.
 */
public final class ScheduledWebhookQueue implements WebhookQueue {

    static final long FAILED_ATTEMPT_RETRY_MILLIS = 5_000;

    /** One webhook's next attempt; {@code callbackUrl} is the receiver it routes to, null when not given. */
    private record Entry(String requestId, String callbackUrl, int attempt, long dueAtMillis) {
    }

    private final LongSupplier clock;
    private final PriorityQueue<Entry> due = new PriorityQueue<>((a, b) -> Long.compare(a.dueAtMillis, b.dueAtMillis));
    private final List<String> deadLettered = new ArrayList<>();

    public ScheduledWebhookQueue(LongSupplier clock) {
        this.clock = clock;
    }

    /** Queues a webhook whose receiver is not given: {@link #runDueRouted} routes it with {@code null}. */
    @Override
    public void enqueue(String requestId) {
        enqueue(requestId, null);
    }

    @Override
    public synchronized void enqueue(String requestId, String callbackUrl) {
        due.add(new Entry(requestId, callbackUrl, 1, clock.getAsLong()));
    }

    /**
     * Hands every entry due at the clock's now to {@code executor}, one {@link WebhookSender}
     * attempt each; returns how many were handed over.
     */
    public int runDue(WebhookSender sender, Executor executor) {
        return runDueRouted(sender, callbackUrl -> executor);
    }

    /**
     * As {@link #runDue}, each attempt handed to the executor {@code route} picks for the
     * {@code callbackUrl} its webhook was queued with (null when none was given): the local runtime
     * keeps one lane per receiver, so a slow receiver holds only its own. The entry carries the
     * receiver, so routing reads nothing; the attempt reads the request once.
     */
    public int runDueRouted(WebhookSender sender, Function<String, Executor> route) {
        List<Entry> ready = new ArrayList<>();
        synchronized (this) {
            long now = clock.getAsLong();
            while (!due.isEmpty() && due.peek().dueAtMillis <= now) {
                ready.add(due.poll());
            }
        }
        for (Entry entry : ready) {
            route.apply(entry.callbackUrl).execute(() -> attempt(sender, entry));
        }
        return ready.size();
    }

    /**
     * One attempt. One that throws (the store unreachable, say) did not run to its end: the same
     * attempt is due again {@value #FAILED_ATTEMPT_RETRY_MILLIS} ms later rather than dropped, so the
     * webhook is never lost to a passing fault; the receiver may see a POST twice, with the same
     * delivery id, as it may from SQS on AWS.
     */
    private void attempt(WebhookSender sender, Entry entry) {
        WebhookSender.Attempt outcome;
        try {
            outcome = sender.attempt(entry.requestId, entry.attempt, clock.getAsLong());
        } catch (RuntimeException e) {
            synchronized (this) {
                due.add(new Entry(entry.requestId, entry.callbackUrl, entry.attempt,
                        clock.getAsLong() + FAILED_ATTEMPT_RETRY_MILLIS));
            }
            return;
        }
        settle(entry, outcome);
    }

    private synchronized void settle(Entry entry, WebhookSender.Attempt attempt) {
        switch (attempt.next()) {
            case RETRY -> due.add(new Entry(entry.requestId, entry.callbackUrl, entry.attempt + 1,
                    clock.getAsLong() + attempt.retryAfterMillis()));
            case DEAD_LETTER -> deadLettered.add(entry.requestId);
            case DONE -> { }
        }
    }

    /** Entries waiting for an attempt. */
    public synchronized int pending() {
        return due.size();
    }

    /** When the earliest entry is due; {@code Long.MAX_VALUE} when none waits. */
    public synchronized long nextDueAtMillis() {
        return due.isEmpty() ? Long.MAX_VALUE : due.peek().dueAtMillis;
    }

    /** Request ids whose every attempt failed, oldest first. */
    public synchronized List<String> deadLettered() {
        return List.copyOf(deadLettered);
    }
}
