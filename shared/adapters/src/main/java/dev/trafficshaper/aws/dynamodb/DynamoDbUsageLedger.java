package dev.trafficshaper.aws.dynamodb;

import static dev.trafficshaper.aws.dynamodb.Attrs.n;
import static dev.trafficshaper.aws.dynamodb.Attrs.s;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.usage.Settlement;
import dev.trafficshaper.usage.UsageLedger;
import dev.trafficshaper.usage.UsageSharding;
import dev.trafficshaper.usage.UsageTotals;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * One item per settlement under {@code MODEL#{m}#U#{bucket}#{shard}}: a conditional put makes a
 * retried settlement a no-op (no counter to double-count), and the shard spreads writes so a key
 * takes completions/s divided by {@link UsageSharding#shards()}.
 */
public final class DynamoDbUsageLedger implements UsageLedger {

    /** Longest range {@link #totals} reads, in buckets; a guard against accidental full scans. */
    public static final int MAX_BUCKETS = 1_440;

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final UsageSharding sharding;

    private DynamoDbUsageLedger(DynamoDbClient dynamoDb, String table, UsageSharding sharding) {
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.sharding = sharding;
    }

    public static DynamoDbUsageLedger create(DynamoDbClient dynamoDb, String table, UsageSharding sharding) {
        return new DynamoDbUsageLedger(dynamoDb, table, sharding);
    }

    @Override
    public boolean record(Settlement settlement, long nowMillis) {
        Map<String, AttributeValue> item = Attrs.key(
                TableKeys.usagePk(settlement.modelKey(), sharding.bucketStart(settlement.startedAtMillis()),
                        sharding.shardOf(settlement.requestId())),
                TableKeys.usageSk(settlement.requestId()));
        item.put("entity", s("usage"));
        item.put("model", s(settlement.modelKey()));
        item.put("requestId", s(settlement.requestId()));
        item.put("tenant", s(settlement.tenant()));
        item.put("startedAt", n(settlement.startedAtMillis()));
        item.put("usage", Attrs.usage(settlement.usage()));
        Charge c = settlement.charge();
        item.put("charge", AttributeValue.fromM(Map.of("requests", n(c.requests()), "tokens", n(c.tokens()),
                "inputTokens", n(c.inputTokens()), "outputTokens", n(c.outputTokens()))));
        item.put(TableKeys.EXPIRES_AT, n(sharding.expiresAt(settlement.startedAtMillis()) / 1000));
        try {
            dynamoDb.putItem(b -> b.tableName(table).item(item)
                    .conditionExpression("attribute_not_exists(#pk) OR #expiresAt <= :nowSeconds")
                    .expressionAttributeNames(Map.of("#pk", TableKeys.PK, "#expiresAt", TableKeys.EXPIRES_AT))
                    .expressionAttributeValues(Map.of(":nowSeconds", n(TableKeys.nowSeconds(nowMillis)))));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    @Override
    public UsageTotals totals(String modelKey, long fromMillis, long toMillis, long nowMillis) {
        long first = sharding.bucketStart(fromMillis) < fromMillis
                ? sharding.bucketStart(fromMillis) + sharding.bucketMillis() : sharding.bucketStart(fromMillis);
        if (toMillis > first && (toMillis - first) / sharding.bucketMillis() > MAX_BUCKETS) {
            throw new IllegalArgumentException("at most " + MAX_BUCKETS + " buckets per call");
        }
        UsageTotals totals = UsageTotals.NONE;
        for (long bucket = first; bucket < toMillis; bucket += sharding.bucketMillis()) {
            for (int shard = 0; shard < sharding.shards(); shard++) {
                totals = addShard(totals, TableKeys.usagePk(modelKey, bucket, shard), nowMillis);
            }
        }
        return totals;
    }

    private UsageTotals addShard(UsageTotals totals, String pk, long nowMillis) {
        Map<String, AttributeValue> start = null;
        do {
            QueryRequest.Builder query = QueryRequest.builder().tableName(table)
                    .keyConditionExpression("#pk = :pk")
                    .filterExpression("#expiresAt > :nowSeconds")
                    .expressionAttributeNames(Map.of("#pk", TableKeys.PK, "#expiresAt", TableKeys.EXPIRES_AT))
                    .expressionAttributeValues(Map.of(":pk", s(pk), ":nowSeconds",
                            n(TableKeys.nowSeconds(nowMillis))));
            if (start != null) {
                query.exclusiveStartKey(start);
            }
            QueryResponse page = dynamoDb.query(query.build());
            for (Map<String, AttributeValue> item : page.items()) {
                totals = totals.plus(settlement(item));
            }
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (start != null);
        return totals;
    }

    private static Settlement settlement(Map<String, AttributeValue> item) {
        Map<String, AttributeValue> c = new HashMap<>(item.get("charge").m());
        return new Settlement(Attrs.string(item, "model"), Attrs.string(item, "requestId"),
                Attrs.string(item, "tenant"), Attrs.number(item, "startedAt"), Attrs.usage(item, "usage"),
                new Charge(Attrs.number(c, "requests"), Attrs.number(c, "tokens"), Attrs.number(c, "inputTokens"),
                        Attrs.number(c, "outputTokens")));
    }
}
