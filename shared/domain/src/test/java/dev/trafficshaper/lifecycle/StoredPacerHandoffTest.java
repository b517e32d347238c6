package dev.trafficshaper.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Candidate;
import dev.trafficshaper.pacing.Decision;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.pacing.Pacer;
import dev.trafficshaper.pacing.PacerState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StoredPacerHandoffTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final ModelConfig MODEL = ModelConfig.of("m", "model-id", Quota.tokensPerMinute(600_000));
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
