package dev.trafficshaper.loadtest.harness;

/** Where a request of a load test ended, or that it was handed to the shaper and is not over yet. */
public enum OutcomeStatus {
    SUCCEEDED,
    /** Bedrock or the shaper answered with a failure (throttled, dependency error, invalid...). */
    FAILED,
    /** The shaper gave up on it at its deadline. */
    EXPIRED,
    /** The shaper refused it at submission; nothing was queued. */
    REJECTED,
    /** Accepted by the shaper's API; the outcome comes later, from the webhook or the outcome event. */
    SUBMITTED;

    public boolean isTerminal() {
        return this != SUBMITTED;
    }

    /** The shaper's state name as its API reports it; any unknown state counts as a failure. */
    public static OutcomeStatus fromShaperState(String state) {
        if (state == null) {
            return FAILED;
        }
        return switch (state) {
            case "SUCCEEDED" -> SUCCEEDED;
            case "EXPIRED" -> EXPIRED;
            case "REJECTED" -> REJECTED;
            case "QUEUED", "ADMITTED", "INVOKING" -> SUBMITTED;
            default -> FAILED;
        };
    }
}
