package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.PayloadKind;
import java.util.List;
import java.util.Locale;

/**
 * The single table's key schema: every item's {@code pk}/{@code sk} is built here and nowhere
 * else. {@link #PATTERNS} is the same schema written out; docs/persistence.md repeats it, and a
 * test fails when the two differ.
 *
 * <p>Queue sort keys start with a lane rank ({@code 1-interactive}, {@code 2-bulk}) so that a
 * plain ascending Query returns interactive items before bulk ones, then oldest first: the
 * enqueue time is zero-padded to 15 digits so text order is time order.
 */
public final class TableKeys {

    public static final String PK = "pk";
    public static final String SK = "sk";
    /** The TTL attribute, epoch seconds. Reads also filter on it: TTL deletion lags up to ~48 h. */
    public static final String EXPIRES_AT = "expiresAt";

    public static final String LEASE_SK = "LEASE";
    public static final String CONFIG_SK = "CONFIG";
    public static final String STATUS_SK = "STATUS";

    /** One row of the key schema, with {@code {placeholders}} for the variable parts. */
    public record KeyPattern(String entity, String pk, String sk) {
    }

    public static final List<KeyPattern> PATTERNS = List.of(
            new KeyPattern("model config", "MODEL#{model}", CONFIG_SK),
            new KeyPattern("drainer lease", "MODEL#{model}", LEASE_SK),
            new KeyPattern("model status", "MODEL#{model}", STATUS_SK),
            new KeyPattern("queue item", "MODEL#{model}#Q#{shard}", "{laneRank}-{lane}#{enqueuedAtMillis:15}#{requestId}"),
            new KeyPattern("request status", "REQ#{requestId}", STATUS_SK),
            new KeyPattern("payload", "REQ#{requestId}", "PAYLOAD#{kind}#{sha256}"),
            new KeyPattern("usage settlement", "MODEL#{model}#U#{bucketStartMillis}#{shard}", "REQ#{requestId}"));

    private TableKeys() {
    }

    public static String modelPk(String model) {
        return "MODEL#" + model;
    }

    public static String queuePk(String model, int shard) {
        return modelPk(model) + "#Q#" + shard;
    }

    /** The sort-key prefix shared by all queue items of one lane. */
    public static String lanePrefix(Lane lane) {
        return laneRank(lane) + "-" + lane.wireName() + "#";
    }

    public static String queueSk(Lane lane, long enqueuedAtMillis, String requestId) {
        if (enqueuedAtMillis < 0) {
            throw new IllegalArgumentException("enqueuedAtMillis must not be negative");
        }
        return lanePrefix(lane) + String.format(Locale.ROOT, "%015d", enqueuedAtMillis) + "#" + requestId;
    }

    public static String requestPk(String requestId) {
        return "REQ#" + requestId;
    }

    public static String payloadSk(PayloadKind kind, String sha256) {
        return "PAYLOAD#" + kind.wireName() + "#" + sha256;
    }

    public static String usagePk(String model, long bucketStartMillis, int shard) {
        return modelPk(model) + "#U#" + bucketStartMillis + "#" + shard;
    }

    public static String usageSk(String requestId) {
        return "REQ#" + requestId;
    }

    static int laneRank(Lane lane) {
        return switch (lane) {
            case INTERACTIVE -> 1;
            case BULK -> 2;
        };
    }

    /** DynamoDB TTL is in epoch seconds; a record is live while {@code expiresAt > nowSeconds}. */
    public static long nowSeconds(long nowMillis) {
        return Math.floorDiv(nowMillis, 1000);
    }
}
