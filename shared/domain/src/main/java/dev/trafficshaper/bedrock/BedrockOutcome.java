package dev.trafficshaper.bedrock;

import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.FailureReason;
import java.time.Instant;

/**
 * What one model call produced. The three failure kinds are kept apart because each asks for a
 * different reaction: a throttle is evidence the pacer misjudged the quota and goes back to it;
 * a transient failure may be retried within the deadline but says nothing about the quota; a
 * rejection will fail the same way every time and must never be retried.
 */
public sealed interface BedrockOutcome {

    /**
     * The model answered. {@code stopReason} ({@code end_turn}, {@code max_tokens},
     * {@code guardrail_intervened}, …) is part of the answer, never a failure: retrying a
     * truncated or guarded answer would burn quota and give the same result.
     *
     * @param usage        tokens Bedrock reports as used, for settlement
     * @param stopReason   the stop reason as sent ({@code stopReason}, {@code stop_reason},
     *                     {@code finish_reason}, a Responses {@code status}...), empty if none
     * @param responseJson the response body exactly as the backend sent it (Converse, the native
     *                     InvokeModel response, Chat Completions, Responses or Anthropic Messages)
     * @param serviceMillis how long the backend says it worked on the call (Converse's
     *                     {@code metrics.latencyMs}, InvokeModel's {@code X-Amzn-Bedrock-Invocation-Latency}),
     *                     {@link #UNKNOWN_SERVICE} when it does not say: the call reached it no later
     *                     than that long before its answer came
     */
    record Succeeded(TokenUsage usage, String stopReason, String responseJson, long serviceMillis)
            implements BedrockOutcome {

        public static final long UNKNOWN_SERVICE = -1;

        public Succeeded {
            if (usage == null || stopReason == null || responseJson == null) {
                throw new IllegalArgumentException("usage, stopReason and responseJson are required");
            }
            if (serviceMillis < UNKNOWN_SERVICE) {
                throw new IllegalArgumentException("serviceMillis must not be negative");
            }
        }

        public Succeeded(TokenUsage usage, String stopReason, String responseJson) {
            this(usage, stopReason, responseJson, UNKNOWN_SERVICE);
        }
    }

    /** A call that produced no answer. */
    sealed interface Failure extends BedrockOutcome permits Throttled, Transient, Rejected {

        /** Whether the same request may succeed if sent again later. */
        boolean retryable();

        /** The HTTP status Bedrock answered with, or 0 when no answer arrived. */
        int httpStatus();

        String message();

        /** Why the request failed if this outcome ends it with time still left. */
        FailureReason failureReason();

        /**
         * The reason to record if this outcome ends the request at {@code now}. A retryable failure
         * after the deadline is reported as an expired deadline: a retry could have fixed it, so the
         * caller learns the request ran out of time rather than that the service is broken.
         */
        default FailureReason failureReasonAt(Instant now, Instant deadline) {
            return retryable() && !now.isBefore(deadline) ? FailureReason.DEADLINE_EXPIRED : failureReason();
        }
    }

    /** Bedrock said the quota is exhausted right now (ThrottlingException, 429). */
    record Throttled(String message) implements Failure {

        public static final int HTTP_STATUS = 429;

        @Override
        public boolean retryable() {
            return true;
        }

        @Override
        public int httpStatus() {
            return HTTP_STATUS;
        }

        @Override
        public FailureReason failureReason() {
            return FailureReason.THROTTLED;
        }
    }

    /** A momentary failure of the model, the service or the network; unrelated to the quota. */
    record Transient(TransientKind kind, int httpStatus, String message) implements Failure {

        public Transient {
            if (kind == null) {
                throw new IllegalArgumentException("kind is required");
            }
        }

        /** Not for a failure that may have run: sending it again could run it twice. */
        @Override
        public boolean retryable() {
            return kind.provesNothingRan();
        }

        /** A dependency error when Bedrock provably did nothing, else a model timeout (it may have run). */
        @Override
        public FailureReason failureReason() {
            return kind.provesNothingRan() ? FailureReason.DEPENDENCY_ERROR : FailureReason.MODEL_TIMEOUT;
        }
    }

    /** The request or the shaper's configuration is wrong; sending it again cannot help. */
    record Rejected(RejectionKind kind, int httpStatus, String message) implements Failure {

        public Rejected {
            if (kind == null) {
                throw new IllegalArgumentException("kind is required");
            }
        }

        @Override
        public boolean retryable() {
            return false;
        }

        @Override
        public FailureReason failureReason() {
            return kind.failureReason();
        }
    }
}
