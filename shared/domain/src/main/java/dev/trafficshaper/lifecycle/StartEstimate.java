package dev.trafficshaper.lifecycle;

import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.pacing.Lane;
import java.util.Optional;

/**
 * Predicts when a new request would be admitted, from the drainer's last published status. This
 * is the shaper's one ETA: submission (early refusal, fallback routing) and the status views
 * ({@code Retry-After}, {@code GET /v1/models}) all use it.
 *
 * <p>Why from the status and not from the pacer: the pacer lives in the drainer, one lease holder
 * per model, while predictions are needed in every Submit and Status call, in other processes. The
 * status (published every two seconds) carries what a prediction needs — the queued work per lane
 * in minutes of quota, the pacer's next slot and its current target — so this formula needs no
 * pacer and no store reads beyond the status item. It leaves out the slow-start ramp (a few seconds
 * after an idle minute) and the new request's own cost: both are small against any backlog long
 * enough to decide whether a deadline can be met.
 *
 * <p>The queue drains at {@code target} minutes of quota per minute. Lanes share it as the pacer
 * shares it: interactive work waits for its own backlog plus the bulk work that its lane's weight
 * lets through meanwhile (and vice versa), so
 * {@code start = max(now, nextSlot) + (own + min(other, own × w_other / w_own)) / target} minutes.
 * A status older than {@link #MAX_STATUS_AGE_MILLIS} says nothing about the queue now (no drainer
 * is running, so the queue is at most what the safety net left), and the prediction is
 * "at once"; the deadline still bounds the wait.
 */
public final class StartEstimate {

    public static final long MAX_STATUS_AGE_MILLIS = 120_000;

    private StartEstimate() {
    }

    public static long startAt(ModelConfig model, Optional<ModelStatus> status, Lane lane, long nowMillis) {
        if (status.isEmpty() || status.get().isStale(nowMillis, MAX_STATUS_AGE_MILLIS)) {
            return nowMillis;
        }
        ModelStatus s = status.get();
        double bulkWeight = model.pacer().bulkShareUnderContention();
        double ownWeight = lane == Lane.BULK ? bulkWeight : 1 - bulkWeight;
        double own = lane == Lane.BULK ? s.backlogBulk() : s.backlogInteractive();
        double other = lane == Lane.BULK ? s.backlogInteractive() : s.backlogBulk();
        double competing = Math.min(other, own * (1 - ownWeight) / ownWeight);
        double target = s.target() > 0 ? s.target() : model.pacer().targetUtilization();
        long drainMillis = Math.round((own + competing) / target * 60_000);
        return Math.max(nowMillis, s.nextSlotMillis()) + drainMillis;
    }
}
