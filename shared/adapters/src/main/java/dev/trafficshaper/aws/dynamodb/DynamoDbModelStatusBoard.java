package dev.trafficshaper.aws.dynamodb;

import static dev.trafficshaper.aws.dynamodb.Attrs.n;
import static dev.trafficshaper.aws.dynamodb.Attrs.s;

import dev.trafficshaper.lifecycle.ModelStatus;
import dev.trafficshaper.lifecycle.ModelStatusBoard;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The status board as one item per model, {@code MODEL#{m}/STATUS}. Only the lease holder writes
 * it, a few times a minute, so a plain put suffices; readers use eventually consistent reads
 * (half the cost), since a status a second old predicts as well as a fresh one.
 */
public final class DynamoDbModelStatusBoard implements ModelStatusBoard {

    private final DynamoDbClient dynamoDb;
    private final String table;

    private DynamoDbModelStatusBoard(DynamoDbClient dynamoDb, String table) {
        this.dynamoDb = dynamoDb;
        this.table = table;
    }

    /** The fencing token of the lease the status was published under. */
    static final String FENCE = "fencingToken";

    public static DynamoDbModelStatusBoard create(DynamoDbClient dynamoDb, String table) {
        return new DynamoDbModelStatusBoard(dynamoDb, table);
    }

    @Override
    public boolean publish(ModelStatus status, long fencingToken) {
        Map<String, AttributeValue> item = new java.util.HashMap<>(key(status.modelKey()));
        item.put("entity", s("model-status"));
        item.put("model", s(status.modelKey()));
        item.put("publishedAt", n(status.publishedAtMillis()));
        item.put("queueDepth", n(status.queueDepth()));
        item.put("backlogInteractive", AttributeValue.fromN(Double.toString(status.backlogInteractive())));
        item.put("backlogBulk", AttributeValue.fromN(Double.toString(status.backlogBulk())));
        item.put("nextSlot", n(status.nextSlotMillis()));
        item.put("target", AttributeValue.fromN(Double.toString(status.target())));
        item.put("admitted", n(status.admitted()));
        item.put("throttles", n(status.throttles()));
        item.put("pacerState", s(status.pacerState()));
        item.put(FENCE, n(fencingToken));
        try {
            dynamoDb.putItem(b -> b.tableName(table).item(item)
                    .conditionExpression("attribute_not_exists(#fence) OR #fence <= :fence")
                    .expressionAttributeNames(Map.of("#fence", FENCE))
                    .expressionAttributeValues(Map.of(":fence", n(fencingToken))));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false; // a later lease holder's status stands
        }
    }

    @Override
    public Optional<ModelStatus> read(String modelKey) {
        Map<String, AttributeValue> item = dynamoDb.getItem(b -> b.tableName(table).key(key(modelKey))).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ModelStatus(modelKey, Attrs.number(item, "publishedAt"), Attrs.number(item, "queueDepth"),
                decimal(item, "backlogInteractive"), decimal(item, "backlogBulk"), Attrs.number(item, "nextSlot"),
                decimal(item, "target"), Attrs.number(item, "admitted"), Attrs.number(item, "throttles"),
                Attrs.string(item, "pacerState")));
    }

    private static Map<String, AttributeValue> key(String modelKey) {
        return Attrs.key(TableKeys.modelPk(modelKey), TableKeys.STATUS_SK);
    }

    private static double decimal(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        return value == null || value.n() == null ? 0 : Double.parseDouble(value.n());
    }
}
