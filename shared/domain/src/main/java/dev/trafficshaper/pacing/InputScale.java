package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.TokenUsage;

/**
 * How far the submitted input estimates are from what Bedrock counts, learnt from settlements, so
 * that with headroom on the pacer reserves what the calls will really read rather than the
 * estimator's fixed margin.
 *
 * <p>Why: Bedrock reserves the input it counts, not ours. An estimate 10% high (the character
 * estimator's margin) wastes a tenth of every input reservation; one 40% low lets the pacer admit
 * calls the meter throttles. The ratio is learnt with its spread, and the pacer reserves at its
 * mean plus two spreads, so about one call in forty reads more than reserved, by little.
 *
 * <pre>
 *   r        = actual input / estimated input, per settlement
 *   mean'    = mean + (r − mean) / 16,   spread' = spread + (|r − mean| − spread) / 16
 *   scale    = 1 for the first 16 settlements, then mean + 2 × spread, clamped to [1/2, 2]
 *   reserved = ceil(estimate × scale)
 * </pre>
 *
 * A successor resumes the mean, spread and sample count ({@link PacerState.InputScaleState}), so a
 * handoff neither relearns the scale nor reserves the bare estimate for 16 settlements meanwhile.
 */
final class InputScale {

    static final double LEARNING_RATE = 1.0 / 16;
    static final int WARM_UP = 16;
    static final double MIN_SCALE = 0.5;
    static final double MAX_SCALE = 2.0;

    private double mean = 1.0;
    private double spread;
    private int samples;

    void learn(long estimated, long actual) {
        if (estimated <= 0) {
            return;
        }
        double ratio = (double) actual / estimated;
        if (samples == 0) {
            mean = ratio;
        } else {
            spread += (Math.abs(ratio - mean) - spread) * LEARNING_RATE;
            mean += (ratio - mean) * LEARNING_RATE;
        }
        samples = Math.min(samples + 1, WARM_UP);
    }

    PacerState.InputScaleState export() {
        return new PacerState.InputScaleState(mean, spread, samples);
    }

    /** Continues from a predecessor's learning; nothing learnt (an older state) leaves it fresh. */
    void restore(PacerState.InputScaleState learnt) {
        if (learnt.samples() == 0) {
            return;
        }
        mean = learnt.mean();
        spread = learnt.spread();
        samples = learnt.samples();
    }

    double scale() {
        if (samples < WARM_UP) {
            return 1.0;
        }
        return Math.max(MIN_SCALE, Math.min(MAX_SCALE, mean + 2 * spread));
    }

    /** The usage to reserve for a call whose input was estimated as in {@code expected}. */
    TokenUsage reserve(TokenUsage expected) {
        double scale = scale();
        if (scale == 1.0 || expected.inputTokens() == 0) {
            return expected;
        }
        long input = (long) Math.ceil(expected.inputTokens() * scale);
        return new TokenUsage(input, expected.outputTokens(), expected.cacheReadTokens(), expected.cacheWriteTokens());
    }
}
