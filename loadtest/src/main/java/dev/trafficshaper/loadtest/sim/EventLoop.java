package dev.trafficshaper.loadtest.sim;

import java.util.PriorityQueue;

/**
 * Virtual time for a discrete-event simulation: events run in time order, ties in the order they
 * were scheduled, so a run is a pure function of its inputs and seed.
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
            now = event.at;
            event.action.run();
        }
    }
}
