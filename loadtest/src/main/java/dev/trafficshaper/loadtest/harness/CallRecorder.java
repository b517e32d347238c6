package dev.trafficshaper.loadtest.harness;

import dev.trafficshaper.local.LocalClock;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Counts, per request, the HTTP attempts the SDK makes and the 429s it gets back, including the
 * retries the SDK hides from the caller (the reference implementation found default retries hid
 * ~96% of throttles). The request carries its {@link Calls} as an execution attribute; the
 * interceptor sees every attempt.
 */
final class CallRecorder implements ExecutionInterceptor {

    static final ExecutionAttribute<Calls> CALLS = new ExecutionAttribute<>("dev.trafficshaper.loadtest.Calls");

    private final LocalClock clock;

    CallRecorder(LocalClock clock) {
        this.clock = clock;
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        Calls calls = attributes.getAttribute(CALLS);
        if (calls != null) {
            calls.attempt(clock.nowMillis());
        }
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        Calls calls = attributes.getAttribute(CALLS);
        if (calls != null && context.httpResponse().statusCode() == 429) {
            calls.throttled();
        }
    }

    /** One request's attempts; written by the SDK's thread, read after the call returns. */
    static final class Calls {
        private int attempts;
        private int throttles;
        private long firstMillis = -1;
        private long lastMillis = -1;

        synchronized void attempt(long nowMillis) {
            attempts++;
            if (firstMillis < 0) {
                firstMillis = nowMillis;
            }
            lastMillis = nowMillis;
        }

        synchronized void throttled() {
            throttles++;
        }

        synchronized int attempts() {
            return attempts;
        }

        synchronized int throttles() {
            return throttles;
        }

        synchronized Long firstMillis() {
            return firstMillis < 0 ? null : firstMillis;
        }

        synchronized Long lastMillis() {
            return lastMillis < 0 ? null : lastMillis;
        }
    }
}
