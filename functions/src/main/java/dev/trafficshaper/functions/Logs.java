package dev.trafficshaper.functions;

import com.amazonaws.services.lambda.runtime.Context;
import java.util.function.Supplier;
import org.slf4j.MDC;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * Runs a handler's work with Powertools' Lambda fields (function, cold start, request id) on every
 * log line, plus one key of ours ({@code requestId} or {@code model}), so a request's lines can be
 * found across the functions it passes through.
 */
public final class Logs {

    private Logs() {
    }

    public static <T> T with(Context context, String key, Object value, Supplier<T> work) {
        return PowertoolsLogging.withLogging(context, () -> {
            MDC.put(key, String.valueOf(value));
            try {
                return work.get();
            } finally {
                MDC.remove(key);
            }
        });
    }
}
