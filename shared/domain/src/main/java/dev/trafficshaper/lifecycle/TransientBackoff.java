package dev.trafficshaper.lifecycle;

/**
 * How long a request that came back from a transient failure (Bedrock did nothing) waits before
 * it is offered to the pacer again, and when a run of such failures is an outage.
 *
 * <p>Why: a failure that proves nothing ran costs the request no requeue, so what protects Bedrock
 * and the request's deadline from a tight retry loop is time. The n-th consecutive transient
 * return of one request waits {@code base × 2^(n−1)}, capped at {@code cap}, scaled by a jitter in
 * {@code [1/2, 1)} so a wave of requests that failed together does not come back together. The
 * jitter is a hash of the request id and the attempt, not a random draw, so the drainer stays a
 * pure function of its inputs (and its golden traces stay golden).
 *
 * <p>Outage: {@code outageAfter} transient returns in a row, with no call between them that
 * Bedrock answered (a settlement or a throttle), mean the service is down rather than the requests
 * unlucky. Then the drainer stops admitting and sends one probe at a time, the probes spaced by
 * the same backoff on the outage's own count, until a probe is answered. Load states:
 * <b>healthy</b> (admit at the pacer's pace; a transient return only delays its own request),
 * <b>outage</b> (one probe in flight at most; everything else waits in the queue, costing latency,
 * not requests).
 */
public record TransientBackoff(long baseMillis, long capMillis, int outageAfter) {

    public TransientBackoff {
        if (baseMillis < 1 || capMillis < baseMillis || outageAfter < 1) {
            throw new IllegalArgumentException("backoff base and cap must be positive (cap at least base),"
                    + " outageAfter at least 1");
        }
    }

    /** 250 ms doubling to 8 s; three transient returns in a row are an outage. */
    public static TransientBackoff defaults() {
        return new TransientBackoff(250, 8_000, 3);
    }

    /** The wait before attempt {@code failures + 1} of {@code key}, after {@code failures} (at least 1) in a row. */
    public long delayMillis(String key, int failures) {
        int doublings = Math.max(failures, 1) - 1;
        long full = doublings >= 40 ? capMillis : Math.min(capMillis, baseMillis << doublings);
        long spread = full / 2;
        long jitter = spread == 0 ? 0 : Math.floorMod(mix(key.hashCode() * 31L + failures), spread);
        return full - spread + jitter;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}
