package dev.trafficshaper.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The budget of extra calls holds whatever the meter does: over random runs of admissions,
 * backlog steps and throttles (bursts of them, long lulls in which calls leave the window), every
 * throttle {@link Headroom} takes as its probe's finds, in the 10 minutes up to and including it,
 * at most {@value Headroom#BUDGET_SHARE} of the calls admitted in them as probe throttles. Handoffs
 * at random points (the headroom exported and a successor resumed from it) do not change that: the
 * windows spanning them count every drainer's calls and throttles.
 */
class HeadroomBudgetPropertiesTest {

    private static final PacerSettings ON = PacerSettings.builder().targetUtilization(0.95).build();

    enum Kind { ADMIT, BACKLOG, BACKLOG_WINDOW_BINDS, THROTTLE, HANDOFF }

    record Event(long gapMillis, Kind kind, int count) {
    }

    @Property(tries = 200)
    void probeThrottlesNeverExceedTheBudgetOfTheTenMinutesBeforeThem(@ForAll("runs") List<Event> run) {
        Headroom headroom = new Headroom(ON);
        long handedOffThrottles = 0;
        List<Long> admissions = new ArrayList<>();
        List<Long> probeThrottles = new ArrayList<>();
        long now = 0;
        for (Event event : run) {
            now += event.gapMillis();
            for (int i = 0; i < event.count(); i++) {
                switch (event.kind()) {
                    case ADMIT -> {
                        headroom.admitted(now);
                        admissions.add(now);
                    }
                    case BACKLOG -> headroom.backlogged(false, now);
                    case BACKLOG_WINDOW_BINDS -> headroom.backlogged(true, now);
                    case HANDOFF -> {
                        handedOffThrottles += headroom.probeThrottles();
                        Headroom successor = new Headroom(ON);
                        successor.restore(headroom.forgiveness(), headroom.lift());
                        successor.restoreBudget(headroom.export(now), now);
                        headroom = successor;
                    }
                    case THROTTLE -> {
                        if (headroom.throttled(now)) {
                            probeThrottles.add(now);
                            long calls = countSince(admissions, now - Headroom.BUDGET_WINDOW_MILLIS);
                            long throttles = countSince(probeThrottles, now - Headroom.BUDGET_WINDOW_MILLIS);
                            assertThat(throttles).as("probe throttles in the 10 minutes to %d ms, against %d calls",
                                    now, calls).isLessThanOrEqualTo((long) Math.floor(Headroom.BUDGET_SHARE * calls));
                        }
                    }
                }
            }
        }
        assertThat(handedOffThrottles + headroom.probeThrottles()).isEqualTo(probeThrottles.size());
    }

    @Property(tries = 100)
    void switchedOffItNeverTakesAThrottle(@ForAll("runs") List<Event> run) {
        Headroom headroom = new Headroom(PacerSettings.builder().headroom(false).build());
        long now = 0;
        for (Event event : run) {
            now += event.gapMillis();
            switch (event.kind()) {
                case ADMIT -> headroom.admitted(now);
                case BACKLOG, BACKLOG_WINDOW_BINDS -> headroom.backlogged(event.kind() == Kind.BACKLOG_WINDOW_BINDS, now);
                case THROTTLE -> assertThat(headroom.throttled(now)).isFalse();
                case HANDOFF -> {
                    Headroom successor = new Headroom(PacerSettings.builder().headroom(false).build());
                    successor.restore(1.0, 0.05);
                    successor.restoreBudget(headroom.export(now), now);
                    headroom = successor;
                }
            }
            assertThat(headroom.forgiveness()).isZero();
            assertThat(headroom.lift()).isZero();
        }
    }

    /** Exclusive of the start, as the budget's window is: what happened at {@code after} has left it. */
    private static long countSince(List<Long> times, long after) {
        return times.stream().filter(t -> t > after).count();
    }

    @Provide
    Arbitrary<List<Event>> runs() {
        Arbitrary<Long> gaps = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.longs().between(0, 2_000)),
                net.jqwik.api.Tuple.of(3, Arbitraries.longs().between(2_000, 30_000)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(60_000, 700_000)));
        Arbitrary<Kind> kinds = Arbitraries.frequency(
                net.jqwik.api.Tuple.of(5, Kind.ADMIT),
                net.jqwik.api.Tuple.of(2, Kind.BACKLOG),
                net.jqwik.api.Tuple.of(2, Kind.BACKLOG_WINDOW_BINDS),
                net.jqwik.api.Tuple.of(2, Kind.THROTTLE),
                net.jqwik.api.Tuple.of(1, Kind.HANDOFF));
        Arbitrary<Integer> counts = Arbitraries.integers().between(1, 40);
        return Combinators.combine(gaps, kinds, counts).as(Event::new).list().ofMinSize(1).ofMaxSize(300);
    }
}
