package dev.trafficshaper.pacing;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * How close the bucket model stood to its ceiling over the last {@value #HISTORY_MILLIS} ms, so
 * that a refund the meter booked before the model saw it is credited only as far as a meter that
 * may have sat at its cap since could keep it.
 *
 * <p>Why: a refund goes into the meter when the call ends and into the model when the drainer sees
 * the end, up to seconds later; a meter that reached its cap in between lost what did not fit,
 * while the model, crediting the whole refund, stood above it (the property test found it, 4.5k
 * tokens on a 120k quota, once the model refilled at the quota).
 *
 * <pre>
 *   above(t) = level + held back − ceiling   (at most 0: how far below its ceiling the model stood)
 *   a refund r booked at e, seen now:  credit = min(r, min over t in [e, now] of −above(t))
 *     (a meter holding what the model counted would have clipped it at its cap by the rest);
 *     then above(t) += credit for t ≥ e, as if it had been credited at e
 *   nothing remembered that far back: credit 0
 * </pre>
 *
 * Samples are taken at every refill, refund and start; those within {@value #SLICE_MILLIS} ms keep
 * the highest, and a slice partly before a refund's booking counts whole (the bound only errs low).
 * Between two samples the model only refilled, so each covers the interval before it: a refund
 * booked after the last forgotten sample is measured against what is kept.
 */
final class CeilingHistory {

    /** How far back the model remembers how close it stood to its ceiling. */
    static final long HISTORY_MILLIS = 180_000;
    /** Samples within one such slice are kept as one, the highest (at most 1,800 samples). */
    static final long SLICE_MILLIS = 100;

    private final ArrayDeque<Sample> samples = new ArrayDeque<>();
    /**
     * Up to when the history was forgotten. Before its first sample the model did not run, or a
     * successor took over: a refund booked before its resumption is measured from the first sample
     * (the predecessor's own history is not handed over; docs/roadmap.md).
     */
    private long forgottenUntil = Long.MIN_VALUE;

    /** Remembers {@code above} (per dimension) at {@code nowMillis}, and forgets what is too old. */
    void remember(long nowMillis, double[] above) {
        long slice = Math.floorDiv(nowMillis, SLICE_MILLIS) * SLICE_MILLIS;
        Sample last = samples.peekLast();
        if (last != null && last.atMillis >= slice) {
            for (int i = 0; i < above.length; i++) {
                last.above[i] = Math.max(last.above[i], above[i]);
            }
        } else {
            samples.addLast(new Sample(slice, above.clone()));
        }
        while (samples.size() > 1 && samples.peekFirst().atMillis < nowMillis - HISTORY_MILLIS) {
            forgottenUntil = samples.removeFirst().atMillis;
        }
    }

    /**
     * The least room below its ceiling the model had on dimension {@code index} since
     * {@code sinceMillis}, and now ({@code aboveNow}); counting until {@code ownUntil} the call's
     * own charge {@code own}, which held the ceiling down while on its way. None if it remembers
     * not that far.
     */
    long roomSince(int index, long sinceMillis, double aboveNow, long ownUntil, long own) {
        if (sinceMillis < forgottenUntil) {
            return 0;
        }
        double least = -aboveNow;
        for (Iterator<Sample> newest = samples.descendingIterator(); newest.hasNext(); ) {
            Sample sample = newest.next();
            if (sample.endMillis() <= sinceMillis) {
                break;
            }
            // a slice partly before the refund's booking counts whole; its own charge only if wholly on its way
            least = Math.min(least, -sample.above[index] + (sample.endMillis() <= ownUntil ? own : 0));
        }
        return (long) Math.floor(Math.max(0.0, least));
    }

    /** The model stands {@code credit} higher on dimension {@code index} since {@code sinceMillis} than it remembered. */
    void raiseSince(int index, long sinceMillis, long credit) {
        for (Iterator<Sample> newest = samples.descendingIterator(); newest.hasNext(); ) {
            Sample sample = newest.next();
            if (sample.endMillis() <= sinceMillis) {
                break;
            }
            sample.above[index] += credit;
        }
    }

    /** How far the model stood above its ceiling at most in the slice from {@code atMillis}, per dimension. */
    private record Sample(long atMillis, double[] above) {
        long endMillis() {
            return atMillis + SLICE_MILLIS;
        }
    }
}
