package dev.trafficshaper.lifecycle;

import dev.trafficshaper.request.RequestRecord;

/**
 * Resumes whoever waits for a request once its terminal status is written ("write, then signal"):
 * on AWS the Step Functions execution, through {@code SendTaskSuccess} or {@code SendTaskFailure}
 * with the stored task token; locally the delivery of the result.
 */
public interface WorkflowCallback {

    /** Called with the record in its terminal state; may be called again for the same record. */
    void resume(RequestRecord terminal);
}
