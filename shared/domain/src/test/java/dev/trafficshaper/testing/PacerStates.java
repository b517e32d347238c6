package dev.trafficshaper.testing;

import dev.trafficshaper.pacing.PacerState;

/** Pacer states changed in one part, for tests that resume a pacer from what it would have learnt. */
public final class PacerStates {

    private PacerStates() {
    }

    /** {@code state} with {@code clockMinute} as its clock-minute learner's. */
    public static PacerState withClockMinute(PacerState state, PacerState.ClockMinuteState clockMinute) {
        return new PacerState(state.capturedAtMillis(), state.outputBurndown(), state.dimensions(), state.target(),
                state.lastThrottleAtMillis(), state.lastAdmissionAtMillis(), state.slowStartAtMillis(),
                state.tenantNextSlotMicros(), state.outputShare(), state.forgiveness(), state.lift(),
                state.headroomBudget(), state.inputScale(), state.bank(), state.openCalls(), clockMinute);
    }
}
