package dev.trafficshaper.loadtest.harness;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * How an AWS run covers its schedule with Lambda invocations, which last 15 minutes at most: the
 * schedule is cut into windows of {@code windowMillis}, and each worker gets one item per window in
 * which it has arrivals. An item runs for {@code lead + window + tail}: it starts {@code lead} before
 * its first instant (cold start, reading the manifest, warming its clients) and waits at most
 * {@code tail} after its last arrival for the answers still in flight (the longest SDK call).
 */
public record WindowPlan(List<SliceItem> items, long windowMillis, long leadMillis, long tailMillis) {

    /** What one worker invocation may use of Lambda's 15 minutes, leaving time to flush its outcomes. */
    public static final long MAX_ITEM_MILLIS = 14 * 60_000L;
    public static final long DEFAULT_WINDOW_MILLIS = 10 * 60_000L;
    public static final long DEFAULT_LEAD_MILLIS = 60_000L;

    public WindowPlan {
        items = List.copyOf(items);
    }

    public static WindowPlan of(RunSchedule schedule, int workers, long windowMillis, long leadMillis, long tailMillis,
                                long startEpochMillis) {
        if (windowMillis < 1_000 || leadMillis < 0 || tailMillis < 0) {
            throw new IllegalArgumentException("the window must be at least 1 s and lead and tail not negative");
        }
        if (leadMillis + windowMillis + tailMillis > MAX_ITEM_MILLIS) {
            throw new IllegalArgumentException("a worker would run " + (leadMillis + windowMillis + tailMillis) / 1_000
                    + " s (lead + window + tail), more than the " + MAX_ITEM_MILLIS / 1_000
                    + " s a Lambda invocation can give it; shorten --window-minutes");
        }
        long end = schedule.lastArrivalMillis() + 1;
        int windows = (int) ((end + windowMillis - 1) / windowMillis);
        List<SliceItem> items = new ArrayList<>();
        for (int window = 0; window < windows; window++) {
            long from = window * windowMillis;
            long until = Math.min(end, from + windowMillis);
            for (int worker = 0; worker < workers; worker++) {
                if (schedule.slice(worker, workers, from, until).isEmpty()) {
                    continue;
                }
                String startAt = Instant.ofEpochMilli(startEpochMillis + from - leadMillis).toString();
                items.add(new SliceItem(worker, workers, window, from, until, startAt,
                        startEpochMillis + until + tailMillis));
            }
        }
        return new WindowPlan(items, windowMillis, leadMillis, tailMillis);
    }

    /** Seconds one item's function runs at most. */
    public double itemSeconds(SliceItem item) {
        return (leadMillis + item.untilMillis() - item.fromMillis() + tailMillis) / 1_000.0;
    }
}
