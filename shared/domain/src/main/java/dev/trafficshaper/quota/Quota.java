package dev.trafficshaper.quota;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A model's per-minute quotas as Bedrock meters them. A value of {@code 0} means the dimension is
 * not limited for this model (newer models have no RPM; most have no separate input/output TPM).
 *
 * <p>{@code outputBurndown} is how many quota tokens one output token costs against {@code tpm}
 * (5 for Claude 4-class models, 1 for most others).
 *
 * <p>{@code outputAllowanceOnInput}: the bedrock-mantle endpoint checks a request's input tokens
 * <em>plus its {@code max_tokens}</em> against the input-tokens-per-minute quota when it starts,
 * then counts output as generated; bedrock-runtime does not. See {@link Charge#reservation}.
 */
public record Quota(long tpm, long rpm, long inputTpm, long outputTpm, int outputBurndown,
                    @JsonIgnore boolean outputAllowanceOnInput) {

    /**
     * A bedrock-runtime style quota: the output allowance is reserved on TPM and output TPM only.
     * Also how scenario files are read: the endpoint, not the file, decides the other style.
     */
    @JsonCreator
    public Quota(@JsonProperty("tpm") long tpm, @JsonProperty("rpm") long rpm, @JsonProperty("inputTpm") long inputTpm,
                 @JsonProperty("outputTpm") long outputTpm, @JsonProperty("outputBurndown") int outputBurndown) {
        this(tpm, rpm, inputTpm, outputTpm, outputBurndown, false);
    }

    public Quota {
        if (tpm < 0 || rpm < 0 || inputTpm < 0 || outputTpm < 0) {
            throw new IllegalArgumentException("quotas must not be negative");
        }
        if (tpm == 0 && rpm == 0 && inputTpm == 0 && outputTpm == 0) {
            throw new IllegalArgumentException("at least one of tpm, rpm, inputTpm, outputTpm must be set");
        }
        if (outputBurndown < 1) {
            throw new IllegalArgumentException("outputBurndown must be at least 1");
        }
    }

    /** Combined tokens-per-minute only, burndown 1. */
    public static Quota tokensPerMinute(long tpm) {
        return new Quota(tpm, 0, 0, 0, 1);
    }

    public Quota withRpm(long newRpm) {
        return new Quota(tpm, newRpm, inputTpm, outputTpm, outputBurndown, outputAllowanceOnInput);
    }

    public Quota withOutputBurndown(int burndown) {
        return new Quota(tpm, rpm, inputTpm, outputTpm, burndown, outputAllowanceOnInput);
    }

    public Quota withSeparateInputOutput(long newInputTpm, long newOutputTpm) {
        return new Quota(tpm, rpm, newInputTpm, newOutputTpm, outputBurndown, outputAllowanceOnInput);
    }

    /** The same limits, metered as bedrock-mantle meters them (see the class comment). */
    public Quota withOutputAllowanceOnInput(boolean value) {
        return new Quota(tpm, rpm, inputTpm, outputTpm, outputBurndown, value);
    }

    /** The per-minute limit of one dimension, 0 when unlimited. */
    public long limit(QuotaDimension dimension) {
        return switch (dimension) {
            case REQUESTS -> rpm;
            case TOKENS -> tpm;
            case INPUT_TOKENS -> inputTpm;
            case OUTPUT_TOKENS -> outputTpm;
        };
    }
}
