package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.Pacer;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.pacing.PacerState;
import dev.trafficshaper.queue.AdmitResult;
import dev.trafficshaper.queue.QueueHeads;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.testing.PacerStates;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The drainer's decisions without any I/O: the steps it asks for, in order, with the time each is
 * asked at. Model {@code fast} allows 600 requests a second (36,000 a minute) at a target of 100%
 * without slow start, so the pacer's spacing is 1⅔ ms (slots fall on whole microseconds and are
 * taken at the next millisecond); a trace line is {@code +millis requestIds}.
 */
class DrainerCoreTest {

    private static final String FAST = "fast";
    private static final long LATER = T0 + 600_000;

    private final ShaperFixture shaper = new ShaperFixture(ModelCatalog.of(List.of(
            new ModelConfig(FAST, "vendor.fast-v1", Backend.CONVERSE, new Quota(0, 36_000, 0, 0, 1), 1_000, 100_000,
                    PacerSettings.builder().targetUtilization(1.0).slowStartMillis(0).headroom(false).build(), 4, 900, 3_600,
                    null))));
    private final ModelConfig model = shaper.catalog.require(FAST);
    private final DrainerCore core = DrainerCore.start(model, Pacer.create(model.quota(), model.pacer()),
            PacerHandoff.fresh(), DrainSettings.defaults(), Long.MAX_VALUE, T0);

    @Test
    void aBacklogIsWrittenAdmittedInBatchesAndEachRequestIsDispatchedAtItsOwnSlot() {
        List<QueueItem> queued = queue(60);

        assertThat(core.next(T0)).isEqualTo(new DrainStep.ReadHeads(50));
        core.headsRead(new QueueHeads(queued.subList(0, 50), List.of()), T0);
        assertThat(core.next(T0)).isInstanceOf(DrainStep.CountDepth.class);
        core.depthCounted(60, T0);
        assertThat(core.next(T0)).isInstanceOf(DrainStep.Publish.class);
        core.published(T0);

        DrainStep.Admit first = (DrainStep.Admit) core.next(T0);
        assertThat(first.items()).as("one fenced write for every slot of the next 100 ms, at most 25")
                .hasSize(25).extracting(QueueItem::requestId).startsWith("r00", "r01", "r02");
        assertThat(core.admitted(new AdmitResult(first.items(), List.of()), T0)).extracting(a -> a.admittedAtMillis())
                .startsWith(T0, T0 + 2, T0 + 4).last().isEqualTo(T0 + 41L);

        List<String> trace = new ArrayList<>();
        long now = T0;
        while (now < T0 + 10) {
            DrainStep step = core.next(now);
            if (step instanceof DrainStep.Dispatch dispatch) {
                trace.add("+" + (now - T0) + " " + String.join(",", dispatch.requestIds()));
            } else if (step instanceof DrainStep.Admit next) {
                core.admitted(new AdmitResult(next.items(), List.of()), now);
            } else if (step instanceof DrainStep.Sleep sleep) {
                now = sleep.untilMillis();
            } else {
                throw new AssertionError("unexpected " + step);
            }
        }
        assertThat(trace).as("spacing kept: one request per slot").containsExactly("+0 r00", "+2 r01", "+4 r02",
                "+6 r03", "+7 r04", "+9 r05");
    }

    @Test
    void theHeadsWindowGrowsWithTheAdmissionRate() {
        List<QueueItem> queued = queue(4_000);
        int offset = 0;
        List<Integer> limits = new ArrayList<>();
        long now = T0;
        while (now < T0 + 3_000) {
            DrainStep step = core.next(now);
            if (step instanceof DrainStep.ReadHeads read) {
                limits.add(read.limitPerLane());
                int to = Math.min(queued.size(), offset + read.limitPerLane());
                core.headsRead(new QueueHeads(queued.subList(offset, to), List.of()), now);
            } else if (step instanceof DrainStep.Admit admit) {
                offset += admit.items().size();
                core.admitted(new AdmitResult(admit.items(), List.of()), now);
            } else if (step instanceof DrainStep.Sleep sleep) {
                now = sleep.untilMillis();
            } else if (step instanceof DrainStep.CountDepth) {
                core.depthCounted(queued.size() - offset, now);
            } else if (step instanceof DrainStep.Publish) {
                core.published(now);
            } else if (!(step instanceof DrainStep.Dispatch || step instanceof DrainStep.Poll)) {
                // polls go unanswered: every request is still running
                throw new AssertionError("unexpected " + step);
            }
        }
        assertThat(limits.get(0)).isEqualTo(50);
        assertThat(limits.get(limits.size() - 1)).as("two refresh periods at 600/s").isBetween(1_000, 1_300);
        assertThat(offset).as("3 s at 600/s, and the 100 ms booked ahead").isBetween(1_850, 1_870);
        assertThat(limits.size()).as("reads stay few").isLessThan(20);
    }

    /**
     * Forty tenants share the same 600/s: each flow is admitted at 15/s, so the window each
     * tenant's read needs stays at the minimum, and no read looks full because the lane holds more
     * heads in total than one flow's limit.
     */
    @Test
    void theHeadsWindowIsSizedForTheBusiestTenantNotForTheWholeLane() {
        Map<String, List<QueueItem>> byTenant = new java.util.TreeMap<>();
        for (int t = 0; t < 40; t++) {
            List<QueueItem> items = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                items.add(new QueueItem(FAST, 0, Lane.INTERACTIVE, T0 - 100 + i, String.format("t%02d-%03d", t, i),
                        "tenant-" + t, LATER, TokenUsage.of(10, 10), LATER + 86_400_000));
            }
            byTenant.put("tenant-" + t, items);
        }
        List<Integer> limits = new ArrayList<>();
        java.util.Set<String> admitted = new java.util.HashSet<>();
        long now = T0;
        while (now < T0 + 3_000) {
            DrainStep step = core.next(now);
            if (step instanceof DrainStep.ReadHeads read) {
                limits.add(read.limitPerLane());
                List<QueueItem> heads = new ArrayList<>();
                byTenant.values().forEach(items -> items.stream().filter(item -> !admitted.contains(item.requestId()))
                        .limit(read.limitPerLane()).forEach(heads::add));
                core.headsRead(new QueueHeads(heads, List.of()), now);
            } else if (step instanceof DrainStep.Admit admit) {
                admit.items().forEach(item -> admitted.add(item.requestId()));
                core.admitted(new AdmitResult(admit.items(), List.of()), now);
            } else if (step instanceof DrainStep.Sleep sleep) {
                now = sleep.untilMillis();
            } else if (step instanceof DrainStep.CountDepth) {
                core.depthCounted(4_000 - admitted.size(), now);
            } else if (step instanceof DrainStep.Publish) {
                core.published(now);
            } else if (!(step instanceof DrainStep.Dispatch || step instanceof DrainStep.Poll)) {
                throw new AssertionError("unexpected " + step);
            }
        }
        assertThat(admitted).as("3 s at 600/s, and the 100 ms booked ahead").hasSizeBetween(1_850, 1_870);
        assertThat(limits).as("15/s per tenant needs no more than the minimum").containsOnly(50);
        assertThat(limits.size()).as("one read per refresh period, none early").isLessThanOrEqualTo(4);
    }

    @Test
    void aLostLeaseStillDispatchesWhatWasWrittenAdmittedAndReleasesWhatWasNot() {
        List<QueueItem> queued = queue(30);
        DrainStep.Admit admit = firstAdmit(core, queued);
        core.admitted(new AdmitResult(admit.items(), List.of()), T0);
        assertThat(core.next(T0)).isEqualTo(new DrainStep.Dispatch(List.of("r00")));

        core.leaseLost(T0 + 1);

        DrainStep rest = core.next(T0 + 1);
        assertThat(rest).isInstanceOf(DrainStep.Dispatch.class);
        assertThat(((DrainStep.Dispatch) rest).requestIds()).hasSize(24).first().isEqualTo("r01");
        assertThat(core.next(T0 + 1)).isEqualTo(new DrainStep.Stop("lease lost"));
    }

    @Test
    void atTheStopTimeWhatWasAdmittedIsDispatchedBeforeTheSessionEnds() {
        DrainerCore limited = DrainerCore.start(model, Pacer.create(model.quota(), model.pacer()),
                PacerHandoff.fresh(), DrainSettings.defaults(), T0 + 20, T0);
        DrainStep.Admit admit = firstAdmit(limited, queue(30));
        assertThat(admit.items()).as("no slot booked past the stop time").hasSize(12);
        limited.admitted(new AdmitResult(admit.items(), List.of()), T0);

        assertThat(limited.next(T0 + 20)).isInstanceOf(DrainStep.Dispatch.class);
        assertThat(limited.next(T0 + 20)).isEqualTo(new DrainStep.Stop("time limit"));
    }

    @Test
    void aDrainerWhosePacerSpendsEachTurnQuicklyHandsOffJustBeforeTheTurnRatherThanJustAfterIt() {
        // T0 is 20 s into a clock minute: the turn is at T0 + 40 s, the window's end 3 s after it
        long turn = T0 + 40_000;
        long stopBy = turn + 3_000;
        PacerSettings headroom = model.pacer().toBuilder().headroom(true).build();
        Pacer trusted = Pacer.resume(model.quota(), headroom,
                trustingTheClockMinute(Pacer.create(model.quota(), headroom).export(T0)), T0);
        assertThat(trusted.spendsTurnsQuickly(T0)).isTrue();
        DrainerCore quick = DrainerCore.start(model, trusted, PacerHandoff.fresh(), DrainSettings.defaults(), stopBy, T0);
        DrainerCore even = DrainerCore.start(model, Pacer.create(model.quota(), headroom), PacerHandoff.fresh(),
                DrainSettings.defaults(), stopBy, T0);

        assertThat(quick.next(turn - DrainWindow.TURN_LEAD_MILLIS - 1)).isNotEqualTo(new DrainStep.Stop("time limit"));
        assertThat(quick.next(turn - DrainWindow.TURN_LEAD_MILLIS)).as("2.5 s before the turn")
                .isEqualTo(new DrainStep.Stop("time limit"));
        assertThat(even.next(turn - DrainWindow.TURN_LEAD_MILLIS)).as("a pacer spending evenly keeps the window's end")
                .isNotEqualTo(new DrainStep.Stop("time limit"));
        assertThat(even.next(stopBy)).isEqualTo(new DrainStep.Stop("time limit"));

        DrainerCore retaken = DrainerCore.start(model, trusted, PacerHandoff.fresh(), DrainSettings.defaults(), stopBy,
                T0, turn - 1_000);
        assertThat(retaken.next(turn - 1_000)).as("a lease taken again after idle, admitting since T0: stops at once")
                .isEqualTo(new DrainStep.Stop("time limit"));
        DrainerCore late = DrainerCore.start(model, trusted, PacerHandoff.fresh(), DrainSettings.defaults(), stopBy,
                turn - 1_000, turn - 1_000);
        assertThat(late.next(turn - 1_000)).as("one admitting only since after the moved time keeps the window's end")
                .isNotEqualTo(new DrainStep.Stop("time limit"));
    }

    @Test
    void withACallOfItsOwnOutADrainerWhosePacerSpendsEachTurnQuicklyWakesJustBeforeTheTurnGuardsSpan() {
        long turn = T0 + 40_000; // T0 is 20 s into a clock minute
        long nextTurn = turn + 60_000;
        PacerSettings headroom = model.pacer().toBuilder().headroom(true).build();
        Pacer trusted = Pacer.resume(model.quota(), headroom,
                trustingTheClockMinute(Pacer.create(model.quota(), headroom).export(T0)), T0);
        DrainerCore quick = DrainerCore.start(model, trusted, PacerHandoff.fresh(), DrainSettings.defaults(),
                Long.MAX_VALUE, T0);
        DrainStep.Admit admit = firstAdmit(quick, queue(1));
        quick.admitted(new AdmitResult(admit.items(), List.of()), T0);
        assertThat(quick.next(T0)).isEqualTo(new DrainStep.Dispatch(List.of("r00")));
        quick.dispatchedInline("r00", T0); // a call in the drainer: its end is reported, not polled

        List<Long> wakes = new ArrayList<>();
        long now = T0;
        while (now < nextTurn) {
            DrainStep step = quick.next(now);
            if (step instanceof DrainStep.Sleep sleep) {
                now = sleep.untilMillis();
                wakes.add(now);
            } else if (step instanceof DrainStep.Poll) {
                quick.polled(Map.of(), now);
            } else if (step instanceof DrainStep.RenewLease) {
                quick.leaseRenewed(now);
            } else if (step instanceof DrainStep.ReadHeads) {
                quick.headsRead(new QueueHeads(List.of(), List.of()), now);
            } else if (step instanceof DrainStep.Publish) {
                quick.published(now);
            } else if (step instanceof DrainStep.CountDepth) {
                quick.depthCounted(0, now);
            } else {
                throw new AssertionError("unexpected " + step);
            }
        }
        assertThat(wakes).as("in the bank's episode (the minute after idle) the turn is not spent quickly")
                .doesNotContain(turn - 2_001);
        assertThat(wakes).as("awake at the last moment a call it starts counts in the old minute only (2 s guard)")
                .contains(nextTurn - 2_001);
    }

    /** {@code state} with the clock-minute learner trusting a fixed window, its quick pace never refused. */
    private static PacerState trustingTheClockMinute(PacerState state) {
        return PacerStates.withClockMinute(state, new PacerState.ClockMinuteState(0, true, PacerState.NEVER, Map.of()));
    }

    @Test
    void aFailedDispatchIsTriedAgainAfterAPause() {
        DrainStep.Admit admit = firstAdmit(core, queue(1));
        core.admitted(new AdmitResult(admit.items(), List.of()), T0);
        assertThat(core.next(T0)).isEqualTo(new DrainStep.Dispatch(List.of("r00")));

        core.dispatchFailed("r00", T0);

        DrainStep later = core.next(T0);
        assertThat(later).isInstanceOf(DrainStep.Sleep.class);
        assertThat(core.next(T0 + 1_000)).isEqualTo(new DrainStep.Dispatch(List.of("r00")));
    }

    @Test
    void aDispatchedRequestThatVanishedIsReleasedAndTheDrainerGoesIdle() {
        DrainStep.Admit admit = firstAdmit(core, queue(1));
        core.admitted(new AdmitResult(admit.items(), List.of()), T0);
        core.next(T0);

        assertThat(core.next(T0 + 500)).isEqualTo(new DrainStep.Poll(List.of("r00")));
        core.polled(Map.of(), T0 + 500);

        assertThat(core.inFlight()).as("an unknown request is released").isEmpty();
        assertThat(core.next(T0 + 500)).isInstanceOf(DrainStep.ReadHeads.class);
        core.headsRead(new QueueHeads(List.of(), List.of()), T0 + 500);
        assertThat(core.next(T0 + 500)).isEqualTo(new DrainStep.Stop("idle"));
    }

    /** Takes a fresh core through its first heads read, count and status to its first batch. */
    private static DrainStep.Admit firstAdmit(DrainerCore drainer, List<QueueItem> queued) {
        assertThat(drainer.next(T0)).isInstanceOf(DrainStep.ReadHeads.class);
        drainer.headsRead(new QueueHeads(queued, List.of()), T0);
        assertThat(drainer.next(T0)).isInstanceOf(DrainStep.CountDepth.class);
        drainer.depthCounted(queued.size(), T0);
        assertThat(drainer.next(T0)).isInstanceOf(DrainStep.Publish.class);
        drainer.published(T0);
        return (DrainStep.Admit) drainer.next(T0);
    }

    private List<QueueItem> queue(int count) {
        List<QueueItem> items = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String id = String.format("r%02d", i);
            items.add(new QueueItem(FAST, 0, Lane.INTERACTIVE, T0 - count + i, id, "acme",
                    LATER, TokenUsage.of(10, 10), LATER + 86_400_000));
        }
        return items;
    }

    @Test
    void aResumedOutageHoldsAdmissionUntilItsProbeIsDueThenSendsOneProbe() {
        core.resumeBackoff(new BackoffState(3, true, 2, T0 + 1_000, List.of()), T0);
        List<QueueItem> queued = queue(10);
        assertThat(core.inOutage()).isTrue();

        List<String> admitted = new ArrayList<>();
        long now = T0;
        while (now <= T0 + 1_200) {
            DrainStep step = core.next(now);
            if (step instanceof DrainStep.Sleep sleep) {
                now = sleep.untilMillis();
            } else if (step instanceof DrainStep.ReadHeads) {
                core.headsRead(new QueueHeads(queued, List.of()), now);
            } else if (step instanceof DrainStep.CountDepth) {
                core.depthCounted(10, now);
            } else if (step instanceof DrainStep.Publish) {
                core.published(now);
            } else if (step instanceof DrainStep.Admit admit) {
                core.admitted(new AdmitResult(admit.items(), List.of()), now);
                for (QueueItem item : admit.items()) {
                    admitted.add("+" + (now - T0) + " " + item.requestId());
                }
            }
        }

        assertThat(admitted).as("one probe, once the carried probe backoff has passed").containsExactly("+1000 r00");
        assertThat(core.backoffState(T0 + 1_200)).isEqualTo(new BackoffState(3, true, 2, T0 + 1_000, List.of()));
    }

    @Test
    void theCarriedBackoffsAreTheLongestWaitingOnesStillToComeAtMostSixteen() {
        List<BackoffState.Waiting> early = new ArrayList<>();
        List<BackoffState.Waiting> late = new ArrayList<>();
        for (int i = 0; i < BackoffState.MAX_WAITING; i++) {
            early.add(new BackoffState.Waiting("e" + i, 1, T0 + 100 + i));
            late.add(new BackoffState.Waiting("l" + i, 2, T0 + 5_000 + i));
        }
        core.resumeBackoff(new BackoffState(1, false, 0, BackoffState.NEVER,
                List.of(new BackoffState.Waiting("gone", 1, T0))), T0);
        core.resumeBackoff(new BackoffState(2, false, 0, BackoffState.NEVER, early), T0);
        core.resumeBackoff(new BackoffState(2, false, 0, BackoffState.NEVER, late), T0);

        BackoffState carried = core.backoffState(T0 + 50);

        assertThat(carried.waiting()).as("a wait already over at the resume is not carried").containsExactlyElementsOf(late);
        assertThat(carried.transientRun()).isEqualTo(2);
        assertThat(carried.outage()).isFalse();
        assertThat(core.backoffState(T0 + 10_000)).isEqualTo(new BackoffState(2, false, 0, BackoffState.NEVER,
                List.of()));
    }

    @Test
    void aFreshCoreRemembersNothing() {
        assertThat(core.backoffState(T0).remembersNothing()).isTrue();
    }
}
