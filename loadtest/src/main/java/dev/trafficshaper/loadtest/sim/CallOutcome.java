package dev.trafficshaper.loadtest.sim;

/** How one API call to the simulated Bedrock ended. */
public enum CallOutcome {
    SUCCEEDED,
    /** 429 ThrottlingException: the quota did not admit the call. */
    THROTTLED,
    /** 5xx: the service failed the call; nothing is charged. */
    SERVER_ERROR,
    /** The caller gave up waiting; the generation may still have run and been charged. */
    TIMED_OUT
}
