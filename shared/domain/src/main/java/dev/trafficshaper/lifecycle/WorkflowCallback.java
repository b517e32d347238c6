package dev.trafficshaper.lifecycle;

import dev.trafficshaper.request.RequestRecord;

/**
 * Resumes whoever waits for a request once its terminal status is written ("write, then signal"):
 * on AWS the Step Functions execution, through {@code SendTaskSuccess} or {@code SendTaskFailure}
 * with the stored task token; locally whoever listens for outcomes. The delivery is handed off
 * before ({@link HandoffThenResume}).
 */
public interface WorkflowCallback {

    /**
     * Called with the record in its terminal state; may be called again for the same record. On
     * AWS the execution is resumed with the request's stored task token, read here.
     */
    void resume(RequestRecord terminal);

    /**
     * {@link #resume} with {@code taskToken} instead of the stored token: a retried Admit of a
     * request that has already ended waits on its own new token, which the store refused. By
     * default the same as {@link #resume}, for callbacks that hold no tokens.
     */
    default void resume(RequestRecord terminal, String taskToken) {
        resume(terminal);
    }

    /**
     * Resumes the workflow of a terminal request whose delivery could not be handed off, so that
     * the workflow tries the hand-off again. By default the same as {@link #resume}.
     */
    default void resumeUndelivered(RequestRecord terminal, String cause) {
        resume(terminal);
    }

    /** {@link #resumeUndelivered} with {@code taskToken} instead of the stored token, as {@link #resume(RequestRecord, String)}. */
    default void resumeUndelivered(RequestRecord terminal, String cause, String taskToken) {
        resumeUndelivered(terminal, cause);
    }
}
