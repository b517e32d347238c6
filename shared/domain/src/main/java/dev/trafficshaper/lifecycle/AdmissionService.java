package dev.trafficshaper.lifecycle;

import dev.trafficshaper.lease.DrainerLeases;
import dev.trafficshaper.queue.EnqueueResult;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.request.TransitionResult;

/**
 * The Budget Manager: puts a ticket on its model's queue together with the task token that will
 * resume its workflow, and makes sure a drainer is running.
 *
 * <p>Safe to repeat (the workflow's task may be retried): the enqueue is idempotent on the
 * request id, and a repeat for a request that has already ended resumes its workflow again, so a
 * lost signal is recovered rather than waited on until the timeout.
 */
public final class AdmissionService {

    private final RequestQueue queue;
    private final RequestStore requests;
    private final DrainerLeases leases;
    private final DrainerWake wake;
    private final WorkflowCallback callback;

    private AdmissionService(RequestQueue queue, RequestStore requests, DrainerLeases leases, DrainerWake wake,
                             WorkflowCallback callback) {
        this.queue = queue;
        this.requests = requests;
        this.leases = leases;
        this.wake = wake;
        this.callback = callback;
    }

    public static AdmissionService create(RequestQueue queue, RequestStore requests, DrainerLeases leases,
                                          DrainerWake wake,
                                          WorkflowCallback callback) {
        return new AdmissionService(queue, requests, leases, wake, callback);
    }

    /** @throws RequestIdConflictException when another tenant's request holds the id; nothing changes */
    public RequestRecord admit(Ticket ticket, String taskToken, long nowMillis) {
        EnqueueResult result = queue.enqueue(ticket.toNewRequest(taskToken), nowMillis);
        RequestRecord record = result.record();
        if (!result.created()) {
            if (!record.tenant().equals(ticket.tenant())) {
                throw new RequestIdConflictException(ticket.requestId());
            }
            if (!record.isTerminal() && taskToken != null
                    && requests.taskToken(record.requestId(), nowMillis).filter(taskToken::equals).isEmpty()) {
                // A retried Admit task waits on a new token: whoever ends the request must use it.
                TransitionResult replaced = requests.replaceTaskToken(record.requestId(), taskToken, nowMillis);
                if (replaced.record() != null) {
                    record = replaced.record();
                }
            }
            if (record.isTerminal()) {
                // The workflow waits on this call's token (a retried task state gets a new one), not
                // on the stored one, which the store keeps once the request has ended.
                if (taskToken == null) {
                    callback.resume(record);
                } else {
                    callback.resume(record, taskToken);
                }
                return record;
            }
        }
        if (leases.current(ticket.modelKey(), nowMillis).isEmpty()) {
            wake.wake(ticket.modelKey());
        }
        return record;
    }
}
