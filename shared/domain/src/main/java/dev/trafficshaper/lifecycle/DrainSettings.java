package dev.trafficshaper.lifecycle;

/**
 * How the drainer paces its own bookkeeping. Defaults suit Lambda and the local runtime alike.
 *
 * @param leaseMillis          lease length; renewed every third of it
 * @param headsPerLane         queue heads read per tenant and lane at each refresh at low rates (the
 *                             {@code limitPerTenant} of {@code RequestQueue.heads}); the drainer reads
 *                             more when it admits faster (see {@code maxHeadsPerLane})
 * @param headsRefreshMillis   how often heads are re-read while work remains (new interactive work
 *                             is seen within this time)
 * @param pollMillis           how often outstanding admissions are checked for settlement or throttle
 * @param statusMillis         how often the model's status is published
 * @param depthMillis          how often the queue depth is counted (a full count reads every shard)
 * @param stuckMillis          an admission not settled after this long is given up (its processor died)
 * @param admitLookaheadMillis how far ahead of now the pacer's slots are written ADMITTED in one
 *                             fenced batch; each request is still dispatched at its own slot, so
 *                             spacing is unchanged, and one write serves every slot in the window
 * @param admitBatch           the most requests one fenced admission writes
 * @param maxHeadsPerLane      the most heads read per tenant and lane in one refresh
 * @param dispatchAttempts     how often a dispatch that failed is tried before the request is left
 *                             to the stuck-admission path
 * @param dispatchRetryMillis  the pause before a failed dispatch is tried again
 * @param dispatchMode         whether the drainer calls Bedrock itself ({@link DispatchMode#INLINE}, when
 *                             the composition gives it {@link InlineCalls}) or through the asynchronous
 *                             dispatch ({@link DispatchMode#ASYNC}, the default)
 * @param inlineCalls          the most calls the drainer runs itself at once (inline mode); one more
 *                             goes the asynchronous way
 */
public record DrainSettings(long leaseMillis, int headsPerLane, long headsRefreshMillis, long pollMillis,
                            long statusMillis, long depthMillis, long stuckMillis, long admitLookaheadMillis,
                            int admitBatch, int maxHeadsPerLane, int dispatchAttempts, long dispatchRetryMillis,
                            DispatchMode dispatchMode, int inlineCalls) {

    /** The most calls one drainer runs itself by default: four times the 64 asynchronous dispatches in flight. */
    public static final int DEFAULT_INLINE_CALLS = 256;

    /** Heads are re-read no more often than this when they run low. */
    public static final long MIN_HEADS_GAP_MILLIS = 100;

    public DrainSettings {
        if (leaseMillis < 3_000 || headsPerLane < 1 || headsRefreshMillis < 1 || pollMillis < 1 || statusMillis < 1
                || depthMillis < 1 || stuckMillis < 1 || admitLookaheadMillis < 0 || admitBatch < 1
                || maxHeadsPerLane < headsPerLane || dispatchAttempts < 1 || dispatchRetryMillis < 1
                || dispatchMode == null || inlineCalls < 1) {
            throw new IllegalArgumentException("drain settings must be positive (lease at least 3 s, "
                    + "maxHeadsPerLane at least headsPerLane)");
        }
        if (admitLookaheadMillis >= leaseMillis / 3) {
            throw new IllegalArgumentException("admitLookaheadMillis must be well inside a lease renewal period");
        }
    }

    /** The settings before the dispatch mode existed: asynchronous dispatch. */
    public DrainSettings(long leaseMillis, int headsPerLane, long headsRefreshMillis, long pollMillis,
                         long statusMillis, long depthMillis, long stuckMillis, long admitLookaheadMillis,
                         int admitBatch, int maxHeadsPerLane, int dispatchAttempts, long dispatchRetryMillis) {
        this(leaseMillis, headsPerLane, headsRefreshMillis, pollMillis, statusMillis, depthMillis, stuckMillis,
                admitLookaheadMillis, admitBatch, maxHeadsPerLane, dispatchAttempts, dispatchRetryMillis,
                DispatchMode.ASYNC, DEFAULT_INLINE_CALLS);
    }

    public static DrainSettings defaults() {
        return new DrainSettings(30_000, 50, 1_000, 500, 2_000, 5_000, 16 * 60_000, 100, 25, 2_000, 3, 1_000);
    }

    public DrainSettings withLeaseMillis(long value) {
        return new DrainSettings(value, headsPerLane, headsRefreshMillis, pollMillis, statusMillis, depthMillis,
                stuckMillis, admitLookaheadMillis, admitBatch, maxHeadsPerLane, dispatchAttempts, dispatchRetryMillis,
                dispatchMode, inlineCalls);
    }

    public DrainSettings withPollMillis(long value) {
        return new DrainSettings(leaseMillis, headsPerLane, headsRefreshMillis, value, statusMillis, depthMillis,
                stuckMillis, admitLookaheadMillis, admitBatch, maxHeadsPerLane, dispatchAttempts, dispatchRetryMillis,
                dispatchMode, inlineCalls);
    }

    public DrainSettings withAdmitLookahead(long millis, int batch) {
        return new DrainSettings(leaseMillis, headsPerLane, headsRefreshMillis, pollMillis, statusMillis, depthMillis,
                stuckMillis, millis, batch, maxHeadsPerLane, dispatchAttempts, dispatchRetryMillis, dispatchMode,
                inlineCalls);
    }

    /** These settings with {@code mode}, running at most {@code calls} calls inline at once. */
    public DrainSettings withDispatch(DispatchMode mode, int calls) {
        return new DrainSettings(leaseMillis, headsPerLane, headsRefreshMillis, pollMillis, statusMillis, depthMillis,
                stuckMillis, admitLookaheadMillis, admitBatch, maxHeadsPerLane, dispatchAttempts, dispatchRetryMillis,
                mode, calls);
    }
}
