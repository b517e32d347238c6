package dev.trafficshaper.lifecycle;

import java.util.Locale;

/**
 * How the drainer sends an admitted request to Bedrock.
 *
 * <ul>
 *   <li>{@link #INLINE}: the drainer runs the Bedrock Processor's steps itself, on a bounded pool
 *       of threads ({@link InlineCalls}), so one drainer invocation's duration is shared by every
 *       call in flight, and each call's outcome reaches the drainer without a status read. A call
 *       that does not fit in what is left of the drainer's invocation, or finds every thread busy,
 *       goes the asynchronous way instead.
 *   <li>{@link #ASYNC}: each admitted request is an asynchronous invoke of the Bedrock Processor,
 *       which is billed for the whole wait on Bedrock; the drainer learns the outcome by polling.
 * </ul>
 */
public enum DispatchMode {
    INLINE, ASYNC;

    /** {@code inline} or {@code async}, in any case. */
    public static DispatchMode parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("dispatch mode must be inline or async, was " + value, e);
        }
    }

    /** The name as configured: {@code inline} or {@code async}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
