package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.request.TransitionResult;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;

/** Request status items {@code REQ#{id}/STATUS}; each transition is one conditional UpdateItem. */
public final class DynamoDbRequestStore implements RequestStore {

    private final DynamoDbClient dynamoDb;
    private final String table;

    private DynamoDbRequestStore(DynamoDbClient dynamoDb, String table) {
        this.dynamoDb = dynamoDb;
        this.table = table;
    }

    public static DynamoDbRequestStore create(DynamoDbClient dynamoDb, String table) {
        return new DynamoDbRequestStore(dynamoDb, table);
    }

    @Override
    public Optional<RequestRecord> find(String requestId, long nowMillis) {
        Map<String, AttributeValue> item = dynamoDb.getItem(b -> b.tableName(table)
                .key(RequestItems.statusKey(requestId)).consistentRead(true)).item();
        return Attrs.isLive(item, nowMillis) ? Optional.of(RequestItems.status(item)) : Optional.empty();
    }

    @Override
    public TransitionResult transition(String requestId, RequestEvent event, long nowMillis) {
        if (event instanceof RequestEvent.Admit) {
            throw new IllegalArgumentException("admission goes through RequestQueue.admit, which also fences it");
        }
        if (event instanceof RequestEvent.Requeue) {
            throw new IllegalArgumentException("a requeue goes through RequestQueue.requeue, which restores the queue item");
        }
        try {
            Map<String, AttributeValue> updated = dynamoDb.updateItem(StatusUpdate.of(event, nowMillis)
                    .updateItem(table, requestId).returnValues(ReturnValue.ALL_NEW).build()).attributes();
            return TransitionResult.applied(RequestItems.status(updated));
        } catch (ConditionalCheckFailedException e) {
            return refusal(requestId, e.item(), nowMillis);
        }
    }

    /** The result of a failed condition, from the item the failure returned (no second read). */
    static TransitionResult refusal(String requestId, Map<String, AttributeValue> current, long nowMillis) {
        return Attrs.isLive(current, nowMillis)
                ? TransitionResult.refused(RequestItems.status(current))
                : TransitionResult.unknown(requestId);
    }
}
