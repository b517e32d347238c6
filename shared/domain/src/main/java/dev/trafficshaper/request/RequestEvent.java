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
     * Bedrock throttled the request although the pacer admitted it: nothing was consumed, so it goes
     * back to the queue, keeping its place, for the pacer to send again before its deadline. Applied
     * only through {@code RequestQueue.requeue}, which also restores the queue item.
     *
     * @param requeues the request's requeue count after this one
     */
    record Requeue(int requeues, String detail) implements RequestEvent {
        public Requeue {
            if (requeues < 1) {
                throw new IllegalArgumentException("requeues must be positive");
            }
        }

        @Override
        public Set<RequestState> from() {
            return EnumSet.of(RequestState.INVOKING);
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
