package dev.trafficshaper.request;

import dev.trafficshaper.request.RequestEvent.Admit;
import dev.trafficshaper.request.RequestEvent.Expire;
import dev.trafficshaper.request.RequestEvent.Fail;
import dev.trafficshaper.request.RequestEvent.Reject;
import dev.trafficshaper.request.RequestEvent.Requeue;
import dev.trafficshaper.request.RequestEvent.StartInvoking;
import dev.trafficshaper.request.RequestEvent.Succeed;

/**
 * The request state machine as pure functions. Every store applies transitions through here, so
 * the in-memory and the DynamoDB stores cannot disagree about what is allowed.
 *
 * <p>Why conditional on the state left, not on a version: an event's effect does not depend on
 * the fields it overwrites, so a store can write it blind with {@code state IN from()} as its
 * only guard, and a lost race costs one failed write that returns the winner's record.
 */
public final class Lifecycle {

    private Lifecycle() {
    }

    /** Whether {@code event} may be applied to {@code current} at {@code nowMillis}. */
    public static boolean allows(RequestRecord current, RequestEvent event, long nowMillis) {
        if (!event.from().contains(current.state())) {
            return false;
        }
        return !event.requiresOpenDeadline() || current.deadlineMillis() > nowMillis;
    }

    /** The fields {@code event} writes at {@code nowMillis}. */
    public static StatusChange change(RequestEvent event, long nowMillis) {
        if (event instanceof Admit admit) {
            return new StatusChange(RequestState.ADMITTED, nowMillis, null, null, nowMillis,
                    admit.fencingToken(), null, null, null, null, null, null);
        }
        if (event instanceof StartInvoking) {
            return new StatusChange(RequestState.INVOKING, nowMillis, null, null, null, null, nowMillis,
                    null, null, null, null, null);
        }
        if (event instanceof RequestEvent.RecordAnswer answer) {
            return new StatusChange(RequestState.INVOKING, nowMillis, null, null, null, null, null, null,
                    answer.actual(), answer.result(), null, null);
        }
        if (event instanceof Succeed succeed) {
            return new StatusChange(RequestState.SUCCEEDED, nowMillis, null, null, null, null, null,
                    nowMillis, succeed.actual(), succeed.result(), null, null);
        }
        if (event instanceof Fail fail) {
            return new StatusChange(RequestState.FAILED, nowMillis, fail.reason(), fail.detail(), null, null,
                    null, nowMillis, fail.actual(), null, null, null);
        }
        if (event instanceof Expire) {
            return new StatusChange(RequestState.EXPIRED, nowMillis, FailureReason.DEADLINE_EXPIRED, null, null,
                    null, null, nowMillis, null, null, null, null);
        }
        if (event instanceof Reject reject) {
            return new StatusChange(RequestState.REJECTED, nowMillis, reject.reason(), reject.detail(), null,
                    null, null, nowMillis, null, null, null, null);
        }
        if (event instanceof Requeue requeue) {
            return new StatusChange(RequestState.QUEUED, nowMillis, null, requeue.detail(), null, null, null, null,
                    null, null, requeue.requeues(), requeue.reason());
        }
        throw new IllegalArgumentException("unknown event " + event);
    }

    /**
     * {@code next(state, event, now)}: the record after {@code event}, or a refusal that carries
     * {@code current} unchanged.
     */
    public static TransitionResult next(RequestRecord current, RequestEvent event, long nowMillis) {
        if (!allows(current, event, nowMillis)) {
            return TransitionResult.refused(current);
        }
        return TransitionResult.applied(change(event, nowMillis).applyTo(current));
    }
}
