package dev.trafficshaper.lifecycle;

import dev.trafficshaper.request.RequestRecord;

/**
 * The workflow callback every service that writes a terminal state uses: the delivery is handed
 * off first ({@link DeliveryHandoff}), durably, and only then is the workflow resumed. A hand-off
 * that fails resumes the workflow with {@link WorkflowCallback#resumeUndelivered}, so the workflow
 * itself tries it again (on AWS the Finalize step, with its retries); the failure is already on
 * the request, readable through {@code GET}.
 */
public final class HandoffThenResume implements WorkflowCallback {

    private final DeliveryHandoff handoff;
    private final WorkflowCallback workflow;

    private HandoffThenResume(DeliveryHandoff handoff, WorkflowCallback workflow) {
        this.handoff = handoff;
        this.workflow = workflow;
    }

    public static HandoffThenResume create(DeliveryHandoff handoff, WorkflowCallback workflow) {
        if (handoff == null || workflow == null) {
            throw new IllegalArgumentException("handoff and workflow are required");
        }
        return new HandoffThenResume(handoff, workflow);
    }

    @Override
    public void resume(RequestRecord terminal) {
        try {
            handoff.handOff(terminal);
        } catch (RuntimeException e) {
            workflow.resumeUndelivered(terminal, String.valueOf(e.getMessage()));
            return;
        }
        workflow.resume(terminal);
    }

    @Override
    public void resume(RequestRecord terminal, String taskToken) {
        try {
            handoff.handOff(terminal);
        } catch (RuntimeException e) {
            workflow.resumeUndelivered(terminal, String.valueOf(e.getMessage()), taskToken);
            return;
        }
        workflow.resume(terminal, taskToken);
    }

    @Override
    public void resumeUndelivered(RequestRecord terminal, String cause) {
        workflow.resumeUndelivered(terminal, cause);
    }

    @Override
    public void resumeUndelivered(RequestRecord terminal, String cause, String taskToken) {
        workflow.resumeUndelivered(terminal, cause, taskToken);
    }
}
