package dev.trafficshaper.lifecycle;

import dev.trafficshaper.request.RequestRecord;

/**
 * Resumes whoever waits for a request once its terminal status is written ("write, then signal"):
 * on AWS the Step Functions execution, through {@code SendTaskSuccess} or {@code SendTaskFailure}
 * with the stored task token; locally whoever listens for outcomes. The delivery is handed off
 * before ({@link HandoffThenResume}).
 */
public interface WorkflowCallback {

    /** Called with the record in its terminal state; may be called again for the same record. */
    void resume(RequestRecord terminal);

    /**
     * Resumes the workflow of a terminal request whose delivery could not be handed off, so that
     * the workflow tries the hand-off again. By default the same as {@link #resume}.
     */
    default void resumeUndelivered(RequestRecord terminal, String cause) {
        resume(terminal);
    }
}
