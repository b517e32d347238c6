package dev.trafficshaper.aws;

/**
 * How many idle connections per host the JDK keeps alive under the SDK's URL connection client.
 *
 * <p>Why: {@code HttpURLConnection} keeps at most {@code http.maxConnections} idle connections per
 * destination, 5 unless told otherwise. The drainer reads every queue shard at once (one thread per
 * shard, up to {@code DynamoDbRequestQueue}'s pool), dispatches up to 64 Bedrock Processor
 * invocations at once and makes up to 256 Bedrock calls itself (inline dispatch); with 5 kept,
 * every call beyond the fifth in a round opens a new TLS connection, which costs more than the call. The JDK reads the property when it first keeps a
 * connection, so it must be set before the first AWS call, once per process; a value the operator
 * set (for example in {@code JAVA_TOOL_OPTIONS}) is left alone.
 */
public final class HttpKeepAlive {

    /** Connections per host kept alive: the most any of our pools has in flight to one endpoint. */
    public static final int CONNECTIONS_PER_HOST = 256;

    static final String PROPERTY = "http.maxConnections";

    private HttpKeepAlive() {
    }

    /** Keeps {@link #CONNECTIONS_PER_HOST} alive unless the operator chose a value; returns the value in force. */
    public static int ensure() {
        String chosen = System.getProperty(PROPERTY);
        if (chosen == null || chosen.isBlank()) {
            System.setProperty(PROPERTY, Integer.toString(CONNECTIONS_PER_HOST));
            return CONNECTIONS_PER_HOST;
        }
        return Integer.parseInt(chosen.trim());
    }
}
