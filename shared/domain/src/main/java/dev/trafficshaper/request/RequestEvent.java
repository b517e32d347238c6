package dev.trafficshaper.request;

import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.payload.PayloadRef;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Something that moves a request to another state. Each event names the states it may leave, so a
 * store can write it as one conditional update without reading the request first.
 */
public sealed interface RequestEvent {

    /** States this event may leave; any other current state refuses it. */
    Set<RequestState> from();

    /** The state this event leads to. */
    RequestState to();

    /** True when the event is refused once the request's deadline has passed. */
    default boolean requiresOpenDeadline() {
        return false;
    }

    /**
     * The drainer admitted the request under the lease with {@code fencingToken}. Applied only
     * through {@code RequestQueue.admit}, which also removes the queue item and checks the lease.
     */
    record Admit(long fencingToken) implements RequestEvent {
        @Override
        public Set<RequestState> from() {
            return EnumSet.of(RequestState.QUEUED);
        }

        @Override
        public RequestState to() {
            return RequestState.ADMITTED;
        }

        @Override
        public boolean requiresOpenDeadline() {
            return true;
        }
    }

    /** The Bedrock Processor is about to call Bedrock. */
    record StartInvoking() implements RequestEvent {
        @Override
        public Set<RequestState> from() {
            return EnumSet.of(RequestState.ADMITTED);
        }

        @Override
        public RequestState to() {
            return RequestState.INVOKING;
        }
    }

    /**
     * Bedrock answered and the result is stored at {@code result}; the request stays INVOKING until
     * its usage is settled and SUCCEEDED is written. Written first so that a processor that stops
     * between the answer and the terminal write leaves a record the sweeper can finish from, rather
     * than a billed answer that would end as a timeout.
     */
    record RecordAnswer(TokenUsage actual, PayloadRef result) implements RequestEvent {
        public RecordAnswer {
            Objects.requireNonNull(actual, "actual");
            Objects.requireNonNull(result, "result");
        }

        @Override
        public Set<RequestState> from() {
            return EnumSet.of(RequestState.INVOKING);
        }

        @Override
        public RequestState to() {
            return RequestState.INVOKING;
        }
    }

    /** Bedrock answered; the result is stored at {@code result} and used {@code actual}. */
    record Succeed(TokenUsage actual, PayloadRef result) implements RequestEvent {
        public Succeed {
            Objects.requireNonNull(actual, "actual");
            Objects.requireNonNull(result, "result");
        }

        @Override
        public Set<RequestState> from() {
            return EnumSet.of(RequestState.INVOKING);
        }

        @Override
        public RequestState to() {
            return RequestState.SUCCEEDED;
        }
    }

    /** The request failed; {@code actual} is what Bedrock charged, or null when it was not called. */
    record Fail(FailureReason reason, String detail, TokenUsage actual) implements RequestEvent {
        public Fail {
            Objects.requireNonNull(reason, "reason");
        }

        public static Fail of(FailureReason reason, String detail) {
            return new Fail(reason, detail, null);
        }

        @Override
        public Set<RequestState> from() {
            return EnumSet.of(RequestState.QUEUED, RequestState.ADMITTED, RequestState.INVOKING);
        }

        @Override
        public RequestState to() {
            return RequestState.FAILED;
        }
    }

    /** The deadline passed before Bedrock was called. */
    record Expire() implements RequestEvent {
        @Override
        public Set<RequestState> from() {
            return EnumSet.of(RequestState.QUEUED, RequestState.ADMITTED);
        }

        @Override
        public RequestState to() {
            return RequestState.EXPIRED;
        }
    }

    /**
     * The request goes back to the queue, keeping its place, for the pacer to send again before its
     * deadline: Bedrock throttled it or failed transiently (from INVOKING), or the Bedrock Processor
     * found its admission too old to start (from ADMITTED, Bedrock not called). Applied only through
     * {@code RequestQueue.requeue}, which also restores the queue item.
     *
     * @param requeues the request's requeue count after this one: one more than before for a
     *                 throttle, unchanged otherwise
     * @param reason   what the drainer that admitted it should make of its return
     */
    record Requeue(int requeues, RequeueReason reason, String detail) implements RequestEvent {
        public Requeue {
            Objects.requireNonNull(reason, "reason");
            if (requeues < (reason.isCounted() ? 1 : 0)) {
                throw new IllegalArgumentException("requeues must be positive after a " + reason + " requeue");
            }
        }

        @Override
        public Set<RequestState> from() {
            return reason == RequeueReason.STALE_ADMISSION ? EnumSet.of(RequestState.ADMITTED)
                    : EnumSet.of(RequestState.INVOKING);
        }

        @Override
        public RequestState to() {
            return RequestState.QUEUED;
        }

        @Override
        public boolean requiresOpenDeadline() {
            return true;
        }
    }

    /** Refused before admission, e.g. its predicted wait exceeds its deadline. */
    record Reject(FailureReason reason, String detail) implements RequestEvent {
        public Reject {
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public Set<RequestState> from() {
            return EnumSet.of(RequestState.QUEUED);
        }

        @Override
        public RequestState to() {
            return RequestState.REJECTED;
        }
    }
}
