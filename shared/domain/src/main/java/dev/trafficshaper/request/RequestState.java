package dev.trafficshaper.request;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where a request is in its life. A request moves forward only:
 * {@code QUEUED -> ADMITTED -> INVOKING -> SUCCEEDED | FAILED}, and may leave early as
 * {@code EXPIRED} (deadline passed before Bedrock was called), {@code REJECTED} (refused before
 * admission) or {@code FAILED}. The last four are terminal: once written they never change.
 */
public enum RequestState {
    QUEUED,
    ADMITTED,
    INVOKING,
    SUCCEEDED,
    FAILED,
    EXPIRED,
    REJECTED;

    private static final Set<RequestState> TERMINAL = EnumSet.of(SUCCEEDED, FAILED, EXPIRED, REJECTED);

    public boolean isTerminal() {
        return TERMINAL.contains(this);
    }
}
