package dev.trafficshaper.loadtest.sim;

import java.util.PriorityQueue;

/**
 * Virtual time for a discrete-event simulation: events run in time order, ties in the order they
 * were scheduled, so a run is a pure function of its inputs and seed. Time never goes back: an
 * event scheduled in the past runs now.
 */
public final class EventLoop {

    private record Event(long at, long sequence, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event other) {
            int byTime = Long.compare(at, other.at);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private long now;
    private long sequence;

    public long now() {
        return now;
    }

    public void schedule(long atMillis, Runnable action) {
        events.add(new Event(Math.max(atMillis, now), sequence++, action));
    }

    public void after(long delayMillis, Runnable action) {
        schedule(now + delayMillis, action);
    }

    public void run() {
        Event event;
        while ((event = events.poll()) != null) {
            now = Math.max(now, event.at);
            event.action.run();
        }
    }

    /**
     * Runs every event due by {@code atMillis}, then stands at that time. May be called from inside
     * an event: code that blocks in virtual time (the production drainer's sleep) lets the rest of
     * the simulation advance this way.
     */
    public void runUntil(long atMillis) {
        while (!events.isEmpty() && events.peek().at <= atMillis) {
            Event event = events.poll();
            now = Math.max(now, event.at);
            event.action.run();
        }
        now = Math.max(now, atMillis);
    }
}
