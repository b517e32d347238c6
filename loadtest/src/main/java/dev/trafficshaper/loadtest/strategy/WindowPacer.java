package dev.trafficshaper.loadtest.strategy;

import dev.trafficshaper.loadtest.sim.CallOutcome;
import dev.trafficshaper.loadtest.sim.SimRequest;
import dev.trafficshaper.loadtest.sim.SimRun;
import dev.trafficshaper.loadtest.sim.Strategy;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The reference implementation's queue drain, as its documentation describes it: one FIFO queue,
 * dispatch spaced evenly at target × quota, and 2 s and 15 s sliding windows that may each hold at
 * most their share of target × quota. Charges are the estimated reservation, corrected to actual
 * usage when a call completes. No lanes, no throttle feedback; a 429 is returned to the caller.
 */
final class WindowPacer implements Strategy {

    private static final long[] WINDOWS = {2_000, 15_000};

    private final SimRun run;
    private final Quota quota;
    private final double target;
    private final List<Dimension> dimensions = new ArrayList<>();
    private final ArrayDeque<SimRequest> queue = new ArrayDeque<>();
    private final Wakeup wakeup;

    WindowPacer(SimRun run) {
        this.run = run;
        this.quota = run.scenario().quota();
        this.target = run.scenario().windowPacerTarget();
        this.wakeup = new Wakeup(run.loop(), this::pump);
        for (QuotaDimension d : List.of(QuotaDimension.TOKENS, QuotaDimension.INPUT_TOKENS,
                QuotaDimension.OUTPUT_TOKENS, QuotaDimension.REQUESTS)) {
            if (quota.limit(d) > 0) {
                dimensions.add(new Dimension(d, quota.limit(d) * target / 60_000.0));
            }
        }
    }

    @Override
    public void arrive(SimRequest request) {
        run.metrics().startedWaiting(run.now());
        queue.addLast(request);
        pump();
    }

    private void pump() {
        while (!queue.isEmpty()) {
            SimRequest head = queue.peekFirst();
            Charge charge = Charge.reservation(quota, head.estimatedReservation());
            long at = run.now();
            for (Dimension d : dimensions) {
                at = Math.max(at, d.earliest(charge.amount(d.dimension), run.now()));
            }
            if (at > run.now()) {
                wakeup.at(at);
                return;
            }
            queue.pollFirst();
            List<Entry> entries = new ArrayList<>();
            for (Dimension d : dimensions) {
                entries.add(d.charge(charge.amount(d.dimension), run.now()));
            }
            run.sendFromWait(head, outcome -> {
                if (outcome == CallOutcome.SUCCEEDED) {
                    Charge actual = Charge.settlement(quota, head.actualUsage());
                    for (int i = 0; i < dimensions.size(); i++) {
                        entries.get(i).amount = actual.amount(dimensions.get(i).dimension);
                    }
                } else {
                    entries.forEach(e -> e.amount = 0);
                }
                run.finish(head, outcome == CallOutcome.SUCCEEDED);
                pump();
            });
        }
    }

    private static final class Entry {
        final long at;
        long amount;

        Entry(long at, long amount) {
            this.at = at;
            this.amount = amount;
        }
    }

    private static final class Dimension {
        final QuotaDimension dimension;
        final double perMilli;
        final ArrayDeque<Entry> entries = new ArrayDeque<>();
        double nextSlot;

        Dimension(QuotaDimension dimension, double perMilli) {
            this.dimension = dimension;
            this.perMilli = perMilli;
        }

        long earliest(long amount, long now) {
            while (!entries.isEmpty() && entries.peekFirst().at <= now - WINDOWS[WINDOWS.length - 1]) {
                entries.pollFirst();
            }
            long at = Math.max(now, (long) Math.ceil(nextSlot));
            for (long window : WINDOWS) {
                long limit = (long) (perMilli * window);
                long sum = 0;
                for (Entry e : entries) {
                    if (e.at > now - window) {
                        sum += e.amount;
                    }
                }
                if (sum + amount > Math.max(limit, amount)) {
                    long excess = sum + amount - Math.max(limit, amount);
                    for (Entry e : entries) {
                        if (e.at > now - window) {
                            excess -= e.amount;
                            if (excess <= 0) {
                                at = Math.max(at, e.at + window);
                                break;
                            }
                        }
                    }
                }
            }
            return at;
        }

        Entry charge(long amount, long now) {
            nextSlot = Math.max(nextSlot, now) + amount / perMilli;
            Entry entry = new Entry(now, amount);
            entries.addLast(entry);
            return entry;
        }
    }
}
