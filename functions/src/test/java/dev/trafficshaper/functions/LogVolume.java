package dev.trafficshaper.functions;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Property;

/**
 * The bytes the functions' own log lines take per request, as CloudWatch Logs would ingest them:
 * each line the shaper's loggers ({@code dev.trafficshaper}) write with a {@code requestId}, laid out
 * by the functions' JSON appender. Lines of libraries are left out (the metrics library's
 * environment-detection notices appear only off Lambda).
 */
final class LogVolume implements AutoCloseable {

    private static final String APPENDER = "JsonAppender";

    private final Map<String, LongAdder> bytesByRequest = new ConcurrentHashMap<>();
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final AbstractAppender appender;

    LogVolume() {
        Configuration config = context.getConfiguration();
        appender = new AbstractAppender("cost-log-volume", null, config.getAppender(APPENDER).getLayout(), true,
                Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                String id = event.getContextData().getValue("requestId");
                if (id != null && event.getLoggerName().startsWith("dev.trafficshaper")) {
                    bytesByRequest.computeIfAbsent(id, key -> new LongAdder())
                            .add(getLayout().toByteArray(event).length);
                }
            }
        };
        appender.start();
        config.getRootLogger().addAppender(appender, null, null);
        context.updateLoggers();
    }

    long bytes(String requestId) {
        LongAdder bytes = bytesByRequest.get(requestId);
        return bytes == null ? 0 : bytes.sum();
    }

    @Override
    public void close() {
        context.getConfiguration().getRootLogger().removeAppender(appender.getName());
        context.updateLoggers();
        appender.stop();
    }
}
