package dev.trafficshaper.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Candidate;
import dev.trafficshaper.pacing.Decision;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.Pacer;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.pacing.PacerState;
import dev.trafficshaper.testing.PacerStates;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StoredPacerHandoffTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final ModelConfig MODEL = ModelConfig.of("m", "model-id", Quota.tokensPerMinute(600_000));
    /** 6 calls a second of 11k tokens at most: the budget of extra calls fills within a minute. */
    private static final ModelConfig MODEL_WITH_HEADROOM = ModelConfig.of("m", "model-id",
            Quota.tokensPerMinute(4_000_000)).withPacer(PacerSettings.builder().targetUtilization(0.9)
            .slowStartMillis(0).build());
    private final StoredPacerHandoff handoff = new StoredPacerHandoff();

    @Test
    void aSuccessorResumedFromThePublishedStateIsNeverAheadOfThePredecessorAndAtMostABucketBehind() {
        Pacer predecessor = Pacer.create(MODEL.quota(), MODEL.pacer());
        Pacer twin = Pacer.create(MODEL.quota(), MODEL.pacer());
        long now = T0;
        for (int i = 0; i < 20; i++) {
            now = admitNext(predecessor, "a" + i, now);
            admitNext(twin, "a" + i, now);
        }
        String published = handoff.export(predecessor, now);
        Pacer successor = handoff.resume(MODEL, Optional.of(status(published, now)), now);

        List<Long> resumed = times(successor, now, 15);
        List<Long> continued = times(twin, now, 15);
        long spacing = continued.get(1) - continued.get(0);

        assertThat(published).startsWith("{").contains("\"dimensions\"");
        for (int i = 0; i < resumed.size(); i++) {
            assertThat(resumed.get(i)).as("admission " + i).isGreaterThanOrEqualTo(continued.get(i))
                    .isLessThanOrEqualTo(continued.get(i) + PacerState.BUCKET_MILLIS + spacing);
        }
    }

    @Test
    void theLearntOutputShareSurvivesThePublishedJsonAndAnOlderStateWithoutItReadsAsNothingLearnt() {
        Pacer predecessor = Pacer.create(MODEL.quota(), MODEL.pacer());
        long now = T0;
        for (int i = 0; i < 30; i++) {
            Candidate candidate = new Candidate("s" + i, Lane.BULK, "t", TokenUsage.of(1_000, 4_000), now, now + 600_000);
            if (predecessor.decide(List.of(candidate), now) instanceof Decision.Admit admit) {
                predecessor.settle(admit.admission(), TokenUsage.of(1_000, 400), now + 5);
            }
            now += 2_000;
        }
        String published = handoff.export(predecessor, now);
        double learnt = predecessor.export(now).outputShare();

        Pacer successor = handoff.resume(MODEL, Optional.of(status(published, now)), now);
        String older = published.replaceAll(",?\"outputShare\":[0-9.Ee-]+", "");
        Pacer fromOlder = handoff.resume(MODEL, Optional.of(status(older, now)), now);

        assertThat(learnt).isLessThan(0.5);
        assertThat(published).contains("\"outputShare\"");
        assertThat(older).doesNotContain("outputShare");
        assertThat(successor.export(now).outputShare()).isEqualTo(learnt);
        assertThat(fromOlder.export(now).outputShare()).isEqualTo(1.0);
    }

    @Test
    void theHeadroomBudgetTheInputScaleAndTheBackoffSurviveThePublishedJson() throws Exception {
        Pacer predecessor = learntPacer();
        long now = T0 + 200_000;
        BackoffState backoff = new BackoffState(4, true, 2, now + 1_000,
                List.of(new BackoffState.Waiting("w1", 1, now + 200), new BackoffState.Waiting("w2", 3, now + 900)));

        String published = handoff.export(predecessor, backoff, now);
        PacerState exported = predecessor.export(now);

        assertThat(exported.headroomBudget().minutes()).as("calls and a probe throttle to carry")
                .anyMatch(minute -> minute.throttles() > 0).allMatch(minute -> minute.calls() + minute.throttles() > 0);
        assertThat(exported.inputScale().samples()).isEqualTo(16);
        assertThat(StoredPacerHandoff.read(published)).contains(exported);
        assertThat(handoff.resumeBackoff(Optional.of(status(published, now)), now)).isEqualTo(backoff);
        Pacer successor = handoff.resume(MODEL_WITH_HEADROOM, Optional.of(status(published, now)), now);
        assertThat(successor.export(now)).isEqualTo(exported);
    }

    @Test
    void anOlderStateWithoutTheNewFieldsReadsAsNothingLearnt() throws Exception {
        Pacer predecessor = learntPacer();
        long now = T0 + 200_000;
        BackoffState backoff = new BackoffState(3, true, 0, now + 250, List.of());
        ObjectNode older = (ObjectNode) new ObjectMapper().readTree(handoff.export(predecessor, backoff, now));
        older.remove(List.of("headroomBudget", "inputScale", StoredPacerHandoff.BACKOFF));

        PacerState read = StoredPacerHandoff.read(older.toString()).orElseThrow();

        assertThat(read.headroomBudget()).isEqualTo(PacerState.HeadroomState.NONE);
        assertThat(read.inputScale()).isEqualTo(PacerState.InputScaleState.NONE);
        assertThat(read.forgiveness()).isEqualTo(predecessor.export(now).forgiveness());
        assertThat(handoff.resumeBackoff(Optional.of(status(older.toString(), now)), now)).isEqualTo(BackoffState.NONE);
        assertThat(handoff.export(predecessor, BackoffState.NONE, now)).as("nothing to remember, nothing written")
                .doesNotContain(StoredPacerHandoff.BACKOFF);
    }

    @Test
    void theThrottleCeilingAndTheSlowLineSurviveThePublishedJsonAndAnOlderStateReadsAsNoCeiling() throws Exception {
        Pacer predecessor = Pacer.create(MODEL_WITH_HEADROOM.quota(), MODEL_WITH_HEADROOM.pacer());
        long now = T0;
        int throttled = 0;
        for (int i = 0; now < T0 + 200_000; i++) {
            Candidate candidate = new Candidate("c" + i, Lane.BULK, "t", TokenUsage.of(10_000, 1_000), now,
                    now + 3_600_000);
            Decision decision = predecessor.decide(List.of(candidate), now);
            if (decision instanceof Decision.Admit admit) {
                // throttles 2 s apart once the first window has passed: headroom's probe and its bucket
                // model take the first ones while its budget has room, the target the rest
                if (now > T0 + 140_000 && throttled < 13 && now > T0 + 140_000 + throttled * 2_000L) {
                    predecessor.throttled(admit.admission(), now);
                    throttled++;
                } else {
                    predecessor.settle(admit.admission(), TokenUsage.of(10_000, 1_000), now);
                }
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
        PacerState exported = predecessor.export(now);
        String published = handoff.export(predecessor, now);
        ObjectNode older = (ObjectNode) new ObjectMapper().readTree(published);
        ((ObjectNode) older.get("headroomBudget")).remove(List.of("throttleCeiling", "recoveryLine"));

        assertThat(exported.lastThrottleAtMillis()).as("the target took a throttle").isNotEqualTo(PacerState.NEVER);
        assertThat(exported.headroomBudget().throttleCeiling()).as("the level the meter refused at").isBetween(0.5, 0.9);
        assertThat(exported.headroomBudget().recoveryLine()).isPositive().isLessThan(exported.target());
        assertThat(StoredPacerHandoff.read(published)).contains(exported);
        assertThat(handoff.resume(MODEL_WITH_HEADROOM, Optional.of(status(published, now)), now).export(now))
                .isEqualTo(exported);
        PacerState fromOlder = StoredPacerHandoff.read(older.toString()).orElseThrow();
        assertThat(fromOlder.headroomBudget().throttleCeiling()).isZero();
        assertThat(fromOlder.headroomBudget().minutes()).isEqualTo(exported.headroomBudget().minutes());

        assertThat(readWithFlag(published, "headroomBudget", "forgivenessRefused", true).headroomBudget()
                .forgivenessRefused()).as("a refused forgiveness travels").isTrue();
        assertThat(readWithFlag(published, "headroomBudget", "forgivenessRefused", null).headroomBudget()
                .forgivenessRefused()).as("an older state: not refused").isFalse();
    }

    /** The published state with {@code section.flag} set to {@code value}, or without it (null: an older state). */
    private static PacerState readWithFlag(String published, String section, String flag, Boolean value)
            throws Exception {
        ObjectNode root = (ObjectNode) new ObjectMapper().readTree(published);
        ObjectNode node = (ObjectNode) root.get(section);
        if (value == null) {
            node.remove(flag);
        } else {
            node.put(flag, value);
        }
        return StoredPacerHandoff.read(root.toString()).orElseThrow();
    }

    @Test
    void theBucketModelAndTheLearnersProbeSurviveThePublishedJsonAndAnOlderStateReadsAsNothingLearnt()
            throws Exception {
        Pacer predecessor = learntPacer();
        long now = T0 + 200_000;
        PacerState exported = predecessor.export(now, List.of());
        String published = handoff.export(predecessor, BackoffState.NONE, List.of(), now);
        ObjectNode older = (ObjectNode) new ObjectMapper().readTree(published);
        ((ObjectNode) older.get("bank")).remove("bucketModel");
        ((ObjectNode) older.get("clockMinute")).remove(List.of("probeMinuteStartMillis", "longCalls", "refusalMillis",
                "withdrawnAtMillis"));

        assertThat(exported.bank().bucketModel().level()).as("the model counts a level").isNotEmpty();
        assertThat(published).contains("\"bucketModel\"").contains("\"refusalMillis\"");
        assertThat(StoredPacerHandoff.read(published)).contains(exported);
        PacerState fromOlder = StoredPacerHandoff.read(older.toString()).orElseThrow();
        assertThat(fromOlder.bank().bucketModel()).isEqualTo(PacerState.BucketModelState.NONE);
        assertThat(fromOlder.clockMinute().withdrawals()).isEqualTo(exported.clockMinute().withdrawals());
        assertThat(fromOlder.clockMinute().refusalMillis()).as("not measured").isZero();
        assertThat(fromOlder.clockMinute().probeMinuteStartMillis()).as("no probe owed").isEqualTo(PacerState.NEVER);
        assertThat(fromOlder.clockMinute().longCalls()).isFalse();
        assertThat(readWithFlag(published, "clockMinute", "quickRefused", true).clockMinute().quickRefused())
                .as("a refused quick pace travels").isTrue();
        assertThat(readWithFlag(published, "clockMinute", "quickRefused", null).clockMinute().quickRefused())
                .as("an older state: not refused").isFalse();
        ObjectNode refused = (ObjectNode) new ObjectMapper().readTree(published);
        ((ObjectNode) refused.get("clockMinute")).put("quickRefused", true).put("quickRefusedAtMillis", now - 300);
        assertThat(StoredPacerHandoff.read(refused.toString()).orElseThrow().clockMinute().quickRefusedAtMillis())
                .as("when it was refused travels").isEqualTo(now - 300);
        ((ObjectNode) refused.get("clockMinute")).remove("quickRefusedAtMillis");
        assertThat(StoredPacerHandoff.read(refused.toString()).orElseThrow().clockMinute().quickRefusedAtMillis())
                .as("an older state: refused at a time not known").isEqualTo(PacerState.NEVER);
        PacerState.ClockMinuteState m = exported.clockMinute();
        Pacer raised = Pacer.resume(MODEL_WITH_HEADROOM.quota(), MODEL_WITH_HEADROOM.pacer(), PacerStates.withClockMinute(exported,
                new PacerState.ClockMinuteState(m.withdrawals(), true, m.minuteStartMillis(), m.used(),
                        m.probeMinuteStartMillis(), m.longCalls(), m.refusalMillis(), m.withdrawnAtMillis(), false,
                        PacerState.NEVER, 32.0)), now);
        assertThat(StoredPacerHandoff.read(handoff.export(raised, BackoffState.NONE, List.of(), now)).orElseThrow()
                .clockMinute().quickPace()).as("a raised quick pace travels").isEqualTo(32.0);
        ((ObjectNode) refused.get("clockMinute")).remove("quickPace");
        assertThat(StoredPacerHandoff.read(refused.toString()).orElseThrow().clockMinute().quickPace())
                .as("an older state: the first quick pace").isEqualTo(16.0);
        assertThat(handoff.resume(MODEL_WITH_HEADROOM, Optional.of(status(older.toString(), now)), now)
                .export(now, List.of()).bank().bucketModel().level()).as("an empty model, counted from the resume")
                .containsEntry(QuotaDimension.TOKENS, 0L);
        assertThat(handoff.resume(MODEL_WITH_HEADROOM, Optional.of(status(published, now)), now)
                .export(now, List.of()).bank().bucketModel()).isEqualTo(exported.bank().bucketModel());
        assertThat(handoff.export(predecessor, now)).as("a periodic status carries no model").contains("\"level\":{}");
    }

    @Test
    void theBanksQuickPaceSurvivesThePublishedJsonAndAnOlderStateReadsAsEven() throws Exception {
        Pacer predecessor = Pacer.create(MODEL_WITH_HEADROOM.quota(), MODEL_WITH_HEADROOM.pacer());
        long now = T0 + 50_000; // a burst 10 s before the clock minute turns, after an idle minute
        for (int i = 0; i < 40; i++) {
            now = admitNext(predecessor, "q" + i, now);
        }
        PacerState exported = predecessor.export(now, List.of());
        String published = handoff.export(predecessor, BackoffState.NONE, List.of(), now);
        ObjectNode older = (ObjectNode) new ObjectMapper().readTree(published);
        ((ObjectNode) older.get("bank")).remove("quick");

        assertThat(exported.bank().quick().pace()).as("spent before the turn").isEqualTo(16.0);
        assertThat(exported.bank().quick().spent()).isTrue();
        assertThat(exported.bank().quick().firstQuickAtMillis()).isBetween(T0 + 50_000, now);
        assertThat(published).contains("\"quick\"");
        assertThat(StoredPacerHandoff.read(published)).contains(exported);
        assertThat(StoredPacerHandoff.read(older.toString()).orElseThrow().bank().quick())
                .isEqualTo(PacerState.QuickBankState.NONE);
        assertThat(handoff.resume(MODEL_WITH_HEADROOM, Optional.of(status(published, now)), now)
                .export(now, List.of()).bank().quick()).isEqualTo(exported.bank().quick());
    }

    /**
     * A pacer with headroom that has probed and been throttled once, after 16 and more settlements
     * whose input was 80% of the estimate.
     */
    private static Pacer learntPacer() {
        Pacer pacer = Pacer.create(MODEL_WITH_HEADROOM.quota(), MODEL_WITH_HEADROOM.pacer());
        long now = T0;
        boolean throttled = false;
        for (int i = 0; now < T0 + 200_000; i++) {
            Candidate candidate = new Candidate("h" + i, Lane.BULK, "t", TokenUsage.of(10_000, 1_000), now,
                    now + 3_600_000);
            Decision decision = pacer.decide(List.of(candidate), now);
            if (decision instanceof Decision.Admit admit) {
                // After the first burst's bank has left the window: a throttle the probe takes.
                if (!throttled && now > T0 + 140_000) {
                    pacer.throttled(admit.admission(), now);
                    throttled = true;
                } else {
                    pacer.settle(admit.admission(), TokenUsage.of(8_000, 1_000), now);
                }
            } else {
                now = ((Decision.WaitUntil) decision).atMillis();
            }
        }
        return pacer;
    }

    @Test
    void anUnreadableOrMissingStateGivesAFreshPacer() {
        Pacer fromGarbage = handoff.resume(MODEL, Optional.of(status("{not json", T0)), T0);
        Pacer fromNothing = handoff.resume(MODEL, Optional.empty(), T0);
        List<Long> fresh = times(Pacer.create(MODEL.quota(), MODEL.pacer()), T0, 10);

        assertThat(times(fromGarbage, T0, 10)).containsExactlyElementsOf(fresh);
        assertThat(times(fromNothing, T0, 10)).containsExactlyElementsOf(fresh);
    }

    private static ModelStatus status(String pacerState, long at) {
        return new ModelStatus("m", at, 0, 0, 0, at, 0.95, 0, 0, pacerState);
    }

    /** Admission times of {@code count} 30k-token requests offered one after another from {@code from}. */
    private static List<Long> times(Pacer pacer, long from, int count) {
        List<Long> times = new ArrayList<>();
        long now = from;
        for (int i = 0; i < count; i++) {
            now = admitNext(pacer, "b" + i, now);
            times.add(now - from);
        }
        return times;
    }

    private static long admitNext(Pacer pacer, String id, long from) {
        Candidate candidate = new Candidate(id, Lane.INTERACTIVE, "t", TokenUsage.of(20_000, 10_000), from, from + 3_600_000);
        long now = from;
        while (true) {
            Decision decision = pacer.decide(List.of(candidate), now);
            if (decision instanceof Decision.Admit) {
                return now;
            }
            now = ((Decision.WaitUntil) decision).atMillis();
        }
    }
}
