package dev.trafficshaper.lifecycle;

import dev.trafficshaper.request.RequestRecord;

/** What a request that the Bedrock Processor put back in the queue tells the drainer. */
final class RequeueSignal {

    private RequeueSignal() {
    }

    /** A throttle lowers the pacer's target; any other requeue only releases the reservation. */
    static boolean isThrottle(RequestRecord requeued) {
        return requeued.detail() != null && requeued.detail().startsWith(InvocationService.THROTTLED);
    }
}
