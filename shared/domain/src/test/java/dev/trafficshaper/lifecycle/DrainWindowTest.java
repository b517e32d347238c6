package dev.trafficshaper.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.quota.Quota;
import org.junit.jupiter.api.Test;

/** The handoff rule: when a drainer stops admitting, and which calls it may still run itself. */
class DrainWindowTest {

    private static final long START = 1_700_000_000_000L;
    private static final long LAMBDA_END = START + 900_000;

    @Test
    void dispatchingAsynchronouslyTheDrainerHandsOffThirtySecondsBeforeItsEnd() {
        DrainWindow window = DrainWindow.forInvocation(DispatchMode.ASYNC, model(3_600), START, LAMBDA_END);

        assertThat(window.stopByMillis()).isEqualTo(LAMBDA_END - 30_000);
        assertThat(window.fits(START + 5_000, START)).as("no call runs in an asynchronous drainer").isFalse();
    }

    @Test
    void runningCallsItselfTheDrainerHandsOffEarlyEnoughForItsLongestCallToEnd() {
        DrainWindow window = DrainWindow.forInvocation(DispatchMode.INLINE, model(3_600), START, LAMBDA_END);

        // 900 s − 30 s for the writes after the answer − 600 s for the longest call
        assertThat(window.stopByMillis()).isEqualTo(START + 270_000);
        assertThat(window.callsEndByMillis()).isEqualTo(LAMBDA_END - 30_000);
        long lastSlot = window.stopByMillis();
        assertThat(window.fits(lastSlot + 3_600_000, lastSlot)).as("a 10-minute call admitted at the handoff")
                .isTrue();
    }

    @Test
    void aModelWithShortDeadlinesDrainsLongerBeforeItHandsOff() {
        DrainWindow window = DrainWindow.forInvocation(DispatchMode.INLINE, model(120), START, LAMBDA_END);

        assertThat(window.stopByMillis()).isEqualTo(LAMBDA_END - 30_000 - 120_000);
    }

    @Test
    void aCallFitsOnlyWhenItsTimeoutEndsBeforeTheCallsMust() {
        DrainWindow window = new DrainWindow(START + 10_000, START + 65_000);

        assertThat(window.fits(START + 600_000, START)).as("a 10-minute timeout").isFalse();
        assertThat(window.fits(START + 65_000, START)).as("a timeout that ends exactly in time").isTrue();
        assertThat(window.fits(START + 65_001, START)).isFalse();
        assertThat(window.fits(START + 60_000, START + 10_000)).as("called 10 s in, due 50 s later").isTrue();
        assertThat(window.fits(START + 70_000, START + 20_000)).as("called 20 s in, due 50 s later").isFalse();
        assertThat(window.fits(START - 1, START + 60_000)).as("past its deadline: a 1 s call").isTrue();
    }

    @Test
    void anInvocationTooShortForTheInlineRuleKeepsTheAsynchronousHandoffAndSendsLongCallsAway() {
        long end = START + 60_000;

        DrainWindow window = DrainWindow.forInvocation(DispatchMode.INLINE, model(3_600), START, end);

        assertThat(window.stopByMillis()).isEqualTo(end - 30_000);
        assertThat(window.fits(START + 600_000, START)).isFalse();
        assertThat(window.fits(START + 20_000, START)).isTrue();
    }

    @Test
    void aHandOffWithinTenSecondsAfterATurnMovesTwoAndAHalfSecondsBeforeIt() {
        long turn = START + 40_000; // START is 20 s into a clock minute

        assertThat(DrainWindow.beforeTurn(turn + 3_000, START)).isEqualTo(turn - 2_500);
        assertThat(DrainWindow.beforeTurn(turn - 2_000, START)).as("within the lead before it").isEqualTo(turn - 2_500);
        assertThat(DrainWindow.beforeTurn(turn + 9_999, START)).isEqualTo(turn - 2_500);
        assertThat(DrainWindow.beforeTurn(turn + 10_000, START)).as("the turn's calls have mostly ended")
                .isEqualTo(turn + 10_000);
        assertThat(DrainWindow.beforeTurn(turn - 2_501, START)).isEqualTo(turn - 2_501);
        assertThat(DrainWindow.beforeTurn(turn + 3_000, turn - 2_500)).as("not before the drainer started")
                .isEqualTo(turn + 3_000);
        assertThat(DrainWindow.beforeTurn(Long.MAX_VALUE, START)).as("no time limit").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void withoutATimeLimitEveryCallFits() {
        DrainWindow window = DrainWindow.until(Long.MAX_VALUE);

        assertThat(window.fits(START + 3_600_000, START)).isTrue();
    }

    private static ModelConfig model(long maxDeadlineSeconds) {
        return new ModelConfig("m", "vendor.m-v1", Backend.CONVERSE, Quota.tokensPerMinute(1_000_000), 1_000, 100_000,
                PacerSettings.defaults(), 2, Math.min(900, maxDeadlineSeconds), maxDeadlineSeconds, null);
    }
}
