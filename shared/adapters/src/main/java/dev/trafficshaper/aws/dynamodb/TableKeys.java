package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.PayloadKind;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The single table's key schema: every item's {@code pk}/{@code sk} is built here and nowhere
 * else. {@link #PATTERNS} is the same schema written out; docs/persistence.md repeats it, and a
 * test fails when the two differ.
 *
 * <p>Queue sort keys start with a lane rank ({@code 1-interactive}, {@code 2-bulk}), then the
 * tenant's digest, then the enqueue time zero-padded to 15 digits so text order is time order: an
 * ascending Query of a shard returns interactive before bulk, tenant after tenant, each tenant's
 * items oldest first, and the items of one tenant and lane ("a flow") are one contiguous key range
 * that a read can take the front of and then jump past ({@link #flowPrefix}, {@link #afterFlow}).
 * The tenant enters the key as a digest because a tenant is an IAM ARN of up to 2 KB with
 * {@code /} and {@code :} in it; 64 bits of SHA-256 make two tenants of one model sharing a digest
 * improbable (about 10<sup>-11</sup> for 10,000 tenants), and if two ever did, their items would
 * share one flow's key range, in age order, and still be told apart by their {@code tenant} attribute.
 */
public final class TableKeys {

    public static final String PK = "pk";
    public static final String SK = "sk";
    /** The TTL attribute, epoch seconds. Reads also filter on it: TTL deletion lags up to ~48 h. */
    public static final String EXPIRES_AT = "expiresAt";

    public static final String LEASE_SK = "LEASE";
    public static final String CONFIG_SK = "CONFIG";
    public static final String STATUS_SK = "STATUS";
    /** A request's Step Functions task token, beside its status item (a token of up to 1 KB would double its writes). */
    public static final String TOKEN_SK = "TOKEN";
    /**
     * The sparse global secondary index of unsettled requests: only a status item that is ADMITTED
     * or INVOKING carries its key attributes, so the sweeper's Query reads what may be stuck and
     * nothing else. Partitioned by model and shard like the queue, so no index key runs hot.
     */
    public static final String UNSETTLED_INDEX = "unsettled";
    public static final String UNSETTLED_PK = "unsettledPk";
    public static final String UNSETTLED_SK = "unsettledSk";
    /** Hex digits of a tenant's digest in queue sort keys. */
    public static final int TENANT_DIGEST_LENGTH = 16;

    /** One row of the key schema, with {@code {placeholders}} for the variable parts. */
    public record KeyPattern(String entity, String pk, String sk) {
    }

    public static final List<KeyPattern> PATTERNS = List.of(
            new KeyPattern("model config", "MODEL#{model}", CONFIG_SK),
            new KeyPattern("drainer lease", "MODEL#{model}", LEASE_SK),
            new KeyPattern("model status", "MODEL#{model}", STATUS_SK),
            new KeyPattern("queue item", "MODEL#{model}#Q#{shard}",
                    "{laneRank}-{lane}#{tenantDigest}#{enqueuedAtMillis:15}#{requestId}"),
            new KeyPattern("request status", "REQ#{requestId}", STATUS_SK),
            new KeyPattern("task token", "REQ#{requestId}", TOKEN_SK),
            new KeyPattern("unsettled index (GSI " + UNSETTLED_INDEX + ")", "MODEL#{model}#A#{shard}",
                    "{admittedAtMillis:15}#{requestId}"),
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

    public static String queueSk(Lane lane, String tenant, long enqueuedAtMillis, String requestId) {
        if (enqueuedAtMillis < 0) {
            throw new IllegalArgumentException("enqueuedAtMillis must not be negative");
        }
        return flowPrefix(lane, tenantDigest(tenant)) + String.format(Locale.ROOT, "%015d", enqueuedAtMillis) + "#"
                + requestId;
    }

    /** 16 lowercase hex digits: the first 64 bits of the SHA-256 of the tenant's UTF-8 bytes. */
    public static String tenantDigest(String tenant) {
        try {
            byte[] sha256 = MessageDigest.getInstance("SHA-256").digest(tenant.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha256, 0, TENANT_DIGEST_LENGTH / 2);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** The sort-key prefix shared by all queue items of one tenant in one lane. */
    public static String flowPrefix(Lane lane, String tenantDigest) {
        return lanePrefix(lane) + tenantDigest + "#";
    }

    /**
     * A sort key after every item of the flow that {@code flowPrefix} starts and before any item
     * of the next flow ({@code $} follows the separator {@code #}); no item has it.
     */
    public static String afterFlow(String flowPrefix) {
        if (!flowPrefix.endsWith("#")) {
            throw new IllegalArgumentException("not a flow prefix: " + flowPrefix);
        }
        return flowPrefix.substring(0, flowPrefix.length() - 1) + "$";
    }

    /** The flow prefix of a queue sort key: everything up to and including its second {@code #}. */
    public static String flowPrefixOf(String queueSk) {
        int first = queueSk.indexOf('#');
        int second = first < 0 ? -1 : queueSk.indexOf('#', first + 1);
        if (second < 0) {
            throw new IllegalArgumentException("not a queue sort key: " + queueSk);
        }
        return queueSk.substring(0, second + 1);
    }

    public static String unsettledPk(String model, int shard) {
        return modelPk(model) + "#A#" + shard;
    }

    public static String unsettledSk(long admittedAtMillis, String requestId) {
        return String.format("%015d", admittedAtMillis) + "#" + requestId;
    }

    /** The first index sort key after every admission before {@code admittedBeforeMillis}. */
    public static String unsettledBefore(long admittedBeforeMillis) {
        return String.format("%015d", Math.max(0, admittedBeforeMillis));
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
