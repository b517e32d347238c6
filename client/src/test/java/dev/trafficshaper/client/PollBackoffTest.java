package dev.trafficshaper.client;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Golden traces of the waits between polls: each answer is a state and a Retry-After in seconds (-1: none). */
class PollBackoffTest {

    private static final PollBackoff POLLING = PollBackoff.polling(ofSeconds(2), ofSeconds(30), ofMinutes(5));
    private static final PollBackoff FALLBACK = PollBackoff.fallback(ofSeconds(2), ofSeconds(30), ofMinutes(5));

    private static List<Duration> trace(PollBackoff backoff, double u, Object... stateAndRetryAfter) {
        List<Duration> delays = new ArrayList<>();
        PollBackoff.Streak streak = PollBackoff.Streak.NONE;
        for (int i = 0; i < stateAndRetryAfter.length; i += 2) {
            int seconds = (Integer) stateAndRetryAfter[i + 1];
            PollBackoff.Next next = backoff.afterPending(streak, (String) stateAndRetryAfter[i],
                    seconds < 0 ? null : ofSeconds(seconds), u);
            delays.add(next.delay());
            streak = next.streak();
        }
        return delays;
    }

    @Test
    void withoutAHeaderThePollIntervalDoublesUpToTheBackoffCap() {
        assertThat(trace(POLLING, 0, "QUEUED", -1, "QUEUED", -1, "QUEUED", -1, "QUEUED", -1, "QUEUED", -1))
                .containsExactly(ofSeconds(2), ofSeconds(4), ofSeconds(8), ofSeconds(16), ofSeconds(30));
    }

    @Test
    void aRetryAfterLongerThanTheBackoffCapIsStillFollowedUpToTheCallersCap() {
        assertThat(trace(POLLING, 0.99, "QUEUED", 240, "QUEUED", 400))
                .containsExactly(ofSeconds(240), ofMinutes(5));
    }

    @Test
    void aRetryAfterOfZeroGrowsFromTheFloorAndNeverBusyLoops() {
        assertThat(trace(POLLING, 0, "QUEUED", 0, "QUEUED", 0, "QUEUED", 0))
                .containsExactly(ofMillis(100), ofMillis(200), ofMillis(400));
    }

    @Test
    void jitterNeverUndercutsRetryAfter() {
        for (double u : new double[] {0, 0.25, 0.5, 0.999}) {
            List<Duration> delays = trace(POLLING, u, "INVOKING", 1, "INVOKING", 1, "INVOKING", 1, "INVOKING", 1);
            assertThat(delays).allSatisfy(delay -> assertThat(delay).isGreaterThanOrEqualTo(ofSeconds(1)));
            assertThat(delays.get(3)).isBetween(ofMillis(1_000 + 7_000 * 4 / 5), ofSeconds(8));
        }
    }

    @Test
    void theFallbackWaitsAtLeastTheEtaThenDoublesFromItsIntervalToTheCallersCap() {
        assertThat(trace(FALLBACK, 0, "QUEUED", 250, "INVOKING", 1, "INVOKING", 2, "INVOKING", 4, "INVOKING", 8,
                "INVOKING", 16)).containsExactly(ofSeconds(250), ofSeconds(60), ofSeconds(120), ofSeconds(240),
                ofMinutes(5), ofMinutes(5));
    }

    @Test
    void unreadablePollsDoubleFromThePollIntervalUnlessTheGatewaySaysHowLong() {
        assertThat(POLLING.afterFailure(1, null)).isEqualTo(ofSeconds(2));
        assertThat(POLLING.afterFailure(3, null)).isEqualTo(ofSeconds(8));
        assertThat(POLLING.afterFailure(40, null)).isEqualTo(ofMinutes(5));
        assertThat(POLLING.afterFailure(2, ofSeconds(7))).isEqualTo(ofSeconds(7));
    }
}
