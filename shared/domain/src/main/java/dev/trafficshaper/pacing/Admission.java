package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.Charge;

/**
 * A permit for one request, handed out by {@link Pacer#decide}. The caller must report exactly one
 * outcome for it: {@link Pacer#settle}, {@link Pacer#release} or {@link Pacer#throttled}.
 */
public final class Admission {

    private final Candidate candidate;
    private final Charge reservation;
    private final double normalizedCost;
    private final long admittedAtMillis;
    private final SlidingWindowLedger.Entry[] entries;
    private final long[] spaced;
    private final SlidingWindowLedger.Entry[] credits;
    private boolean closed;

    Admission(Candidate candidate, Charge reservation, double normalizedCost, long admittedAtMillis,
            SlidingWindowLedger.Entry[] entries, long[] spaced) {
        this(candidate, reservation, normalizedCost, admittedAtMillis, entries, spaced, null);
    }

    /** An admission the bank paid for carries its credit entries ({@link BankedCapacity}). */
    Admission(Candidate candidate, Charge reservation, double normalizedCost, long admittedAtMillis,
            SlidingWindowLedger.Entry[] entries, long[] spaced, SlidingWindowLedger.Entry[] credits) {
        this.candidate = candidate;
        this.reservation = reservation;
        this.normalizedCost = normalizedCost;
        this.admittedAtMillis = admittedAtMillis;
        this.entries = entries;
        this.spaced = spaced;
        this.credits = credits;
    }

    public Candidate candidate() {
        return candidate;
    }

    public String requestId() {
        return candidate.requestId();
    }

    /** What Bedrock will reserve when this request starts. */
    public Charge reservation() {
        return reservation;
    }

    public long admittedAtMillis() {
        return admittedAtMillis;
    }

    double normalizedCost() {
        return normalizedCost;
    }

    SlidingWindowLedger.Entry entry(int budgetIndex) {
        return entries[budgetIndex];
    }

    boolean banked() {
        return credits != null;
    }

    SlidingWindowLedger.Entry credit(int budgetIndex) {
        return credits[budgetIndex];
    }

    /** What the spacing of one budget charged for this admission. */
    long spaced(int budgetIndex) {
        return spaced[budgetIndex];
    }

    void close() {
        if (closed) {
            throw new IllegalStateException("admission of " + candidate.requestId() + " was already reported");
        }
        closed = true;
    }

    public boolean isClosed() {
        return closed;
    }
}
