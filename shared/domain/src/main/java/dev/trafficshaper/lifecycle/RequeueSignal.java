package dev.trafficshaper.lifecycle;

import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequeueReason;

/** What a request that the Bedrock Processor put back in the queue tells the drainer. */
final class RequeueSignal {

    private RequeueSignal() {
    }

    /**
     * A throttle lowers the pacer's target; any other requeue (a transient failure, a stale
     * admission) only releases the reservation. Read from the typed reason on the record.
     */
    static boolean isThrottle(RequestRecord requeued) {
        return requeued.requeueReason() == RequeueReason.THROTTLED;
    }

    /** A failure that proves Bedrock did nothing: the request backs off, and a run of them is an outage. */
    static boolean isTransient(RequestRecord requeued) {
        return requeued.requeueReason() == RequeueReason.TRANSIENT;
    }
}
