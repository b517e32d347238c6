package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.request.TransitionResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * Request status items {@code REQ#{id}/STATUS}, each transition one conditional UpdateItem, and
 * their task tokens {@code REQ#{id}/TOKEN}, written once with the request and read where its
 * workflow is signalled.
 */
public final class DynamoDbRequestStore implements RequestStore {

    static final int BATCH_GET = 100;
    private static final int MAX_ATTEMPTS = 20;

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

    /**
     * BatchGetItem, 100 keys per call, strongly consistent; keys DynamoDB leaves unprocessed
     * (throttling) are asked for again after a pause.
     */
    @Override
    public Map<String, RequestRecord> findAll(Collection<String> requestIds, long nowMillis) {
        Map<String, RequestRecord> found = new HashMap<>();
        List<String> ids = List.copyOf(new LinkedHashSet<>(requestIds));
        for (int from = 0; from < ids.size(); from += BATCH_GET) {
            List<Map<String, AttributeValue>> keys = new ArrayList<>();
            for (String id : ids.subList(from, Math.min(ids.size(), from + BATCH_GET))) {
                keys.add(RequestItems.statusKey(id));
            }
            Map<String, KeysAndAttributes> pending = Map.of(table,
                    KeysAndAttributes.builder().keys(keys).consistentRead(true).build());
            for (int attempt = 1; !pending.isEmpty(); attempt++) {
                Map<String, KeysAndAttributes> request = pending;
                BatchGetItemResponse response = dynamoDb.batchGetItem(b -> b.requestItems(request));
                for (Map<String, AttributeValue> item : response.responses().getOrDefault(table, List.of())) {
                    if (Attrs.isLive(item, nowMillis)) {
                        RequestRecord record = RequestItems.status(item);
                        found.put(record.requestId(), record);
                    }
                }
                pending = response.hasUnprocessedKeys() ? response.unprocessedKeys() : Map.of();
                if (!pending.isEmpty()) {
                    Backoff.pause(attempt);
                }
            }
        }
        return found;
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

    /** One strongly consistent GetItem of {@code REQ#{id}/TOKEN}: a replaced token is read at once. */
    @Override
    public Optional<String> taskToken(String requestId, long nowMillis) {
        Map<String, AttributeValue> item = dynamoDb.getItem(b -> b.tableName(table)
                .key(RequestItems.tokenKey(requestId)).consistentRead(true)).item();
        return Attrs.isLive(item, nowMillis) ? Optional.ofNullable(Attrs.string(item, RequestItems.TASK_TOKEN))
                : Optional.empty();
    }

    /**
     * A consistent read of the status item, then one transaction: a condition check that the request
     * is live and not terminal, and the token item put with the status item's TTL. Whoever ends the
     * request reads the token after its terminal write, so either it reads the new token or the put
     * is cancelled and the caller, seeing the request ended, resumes the new token itself. Only a
     * retried Admit comes here.
     */
    @Override
    public TransitionResult replaceTaskToken(String requestId, String taskToken, long nowMillis) {
        for (int attempt = 1; ; attempt++) {
            Optional<RequestRecord> current = find(requestId, nowMillis);
            if (current.isEmpty()) {
                return TransitionResult.unknown(requestId);
            }
            if (current.get().isTerminal()) {
                return TransitionResult.refused(current.get());
            }
            ConditionCheck pending = ConditionCheck.builder().tableName(table).key(RequestItems.statusKey(requestId))
                    .conditionExpression("#state IN (:queued, :admitted, :invoking) AND #expiresAt > :nowSeconds")
                    .expressionAttributeNames(Map.of("#state", RequestItems.STATE, "#expiresAt", TableKeys.EXPIRES_AT))
                    .expressionAttributeValues(Map.of(
                            ":queued", AttributeValue.fromS(RequestState.QUEUED.name()),
                            ":admitted", AttributeValue.fromS(RequestState.ADMITTED.name()),
                            ":invoking", AttributeValue.fromS(RequestState.INVOKING.name()),
                            ":nowSeconds", AttributeValue.fromN(Long.toString(TableKeys.nowSeconds(nowMillis)))))
                    .build();
            Put token = Put.builder().tableName(table)
                    .item(RequestItems.token(requestId, taskToken, current.get().expiresAtMillis())).build();
            try {
                dynamoDb.transactWriteItems(b -> b.transactItems(TransactWriteItem.builder().conditionCheck(pending).build(),
                        TransactWriteItem.builder().put(token).build()));
                return TransitionResult.applied(current.get());
            } catch (TransactionCanceledException e) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
                Backoff.pause(attempt); // ended in between (read again to return it) or a conflict
            }
        }
    }

    /**
     * One conditional UpdateItem of the {@code delivery} map: the request is live and terminal,
     * and its delivery is absent, or not delivered and at no more attempts than the new one
     * ({@link RequestStore#acceptsDelivery}).
     */
    @Override
    public TransitionResult recordDelivery(String requestId, DeliveryState delivery, long nowMillis) {
        try {
            Map<String, AttributeValue> updated = dynamoDb.updateItem(b -> b.tableName(table)
                    .key(RequestItems.statusKey(requestId))
                    .updateExpression("SET #delivery = :delivery")
                    .conditionExpression("#expiresAt > :nowSeconds AND #state IN (:succeeded, :failed, :expired,"
                            + " :rejected) AND (attribute_not_exists(#delivery) OR (#delivery.#delivered = :false"
                            + " AND #delivery.#attempts <= :attempts))")
                    .expressionAttributeNames(Map.of("#delivery", RequestItems.DELIVERY, "#state", RequestItems.STATE,
                            "#expiresAt", TableKeys.EXPIRES_AT, "#delivered", RequestItems.DELIVERY_DELIVERED,
                            "#attempts", RequestItems.DELIVERY_ATTEMPTS))
                    .expressionAttributeValues(Map.of(":delivery", RequestItems.delivery(delivery),
                            ":succeeded", AttributeValue.fromS(RequestState.SUCCEEDED.name()),
                            ":failed", AttributeValue.fromS(RequestState.FAILED.name()),
                            ":expired", AttributeValue.fromS(RequestState.EXPIRED.name()),
                            ":rejected", AttributeValue.fromS(RequestState.REJECTED.name()),
                            ":false", AttributeValue.fromBool(false),
                            ":attempts", AttributeValue.fromN(Integer.toString(delivery.attempts())),
                            ":nowSeconds", AttributeValue.fromN(Long.toString(TableKeys.nowSeconds(nowMillis)))))
                    .returnValues(ReturnValue.ALL_NEW)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)).attributes();
            return TransitionResult.applied(RequestItems.status(updated));
        } catch (ConditionalCheckFailedException e) {
            return refusal(requestId, e.item(), nowMillis);
        }
    }

    /**
     * One conditional UpdateItem: the request is live, terminal and not handed off, and no webhook
     * attempt is recorded; it sets {@code handedOffAt} and the delivery state ({@code queued}, or
     * none: a recorded hand-off failure is cleared). When an attempt was recorded in between (the
     * webhook is queued before the mark, and its first attempt may be quick), a second UpdateItem
     * sets {@code handedOffAt} alone and leaves the attempt's state as it is.
     */
    @Override
    public TransitionResult recordHandoff(String requestId, boolean webhookQueued, long nowMillis) {
        Map<String, String> names = new HashMap<>(Map.of("#handedOffAt", RequestItems.HANDED_OFF_AT,
                "#state", RequestItems.STATE, "#expiresAt", TableKeys.EXPIRES_AT));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":now", AttributeValue.fromN(Long.toString(nowMillis)),
                ":succeeded", AttributeValue.fromS(RequestState.SUCCEEDED.name()),
                ":failed", AttributeValue.fromS(RequestState.FAILED.name()),
                ":expired", AttributeValue.fromS(RequestState.EXPIRED.name()),
                ":rejected", AttributeValue.fromS(RequestState.REJECTED.name()),
                ":nowSeconds", AttributeValue.fromN(Long.toString(TableKeys.nowSeconds(nowMillis)))));
        String owed = "#expiresAt > :nowSeconds AND #state IN (:succeeded, :failed, :expired, :rejected)"
                + " AND attribute_not_exists(#handedOffAt)";
        Map<String, String> firstNames = new HashMap<>(names);
        firstNames.putAll(Map.of("#delivery", RequestItems.DELIVERY, "#delivered", RequestItems.DELIVERY_DELIVERED,
                "#attempts", RequestItems.DELIVERY_ATTEMPTS));
        Map<String, AttributeValue> firstValues = new HashMap<>(values);
        firstValues.put(":false", AttributeValue.fromBool(false));
        firstValues.put(":zero", AttributeValue.fromN("0"));
        String update = "SET #handedOffAt = :now";
        if (webhookQueued) {
            firstValues.put(":queued", RequestItems.delivery(DeliveryState.queued(nowMillis)));
            update += ", #delivery = :queued";
        } else {
            update += " REMOVE #delivery";
        }
        String firstUpdate = update;
        try {
            Map<String, AttributeValue> updated = dynamoDb.updateItem(b -> b.tableName(table)
                    .key(RequestItems.statusKey(requestId))
                    .updateExpression(firstUpdate)
                    .conditionExpression(owed + " AND (attribute_not_exists(#delivery) OR (#delivery.#attempts = :zero"
                            + " AND #delivery.#delivered = :false))")
                    .expressionAttributeNames(firstNames)
                    .expressionAttributeValues(firstValues)
                    .returnValues(ReturnValue.ALL_NEW)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)).attributes();
            return TransitionResult.applied(RequestItems.status(updated));
        } catch (ConditionalCheckFailedException e) {
            TransitionResult refused = refusal(requestId, e.item(), nowMillis);
            RequestRecord current = refused.record();
            if (current == null || !current.isTerminal() || current.isHandedOff()) {
                return refused;
            }
        }
        try {
            Map<String, AttributeValue> updated = dynamoDb.updateItem(b -> b.tableName(table)
                    .key(RequestItems.statusKey(requestId))
                    .updateExpression("SET #handedOffAt = :now")
                    .conditionExpression(owed)
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values)
                    .returnValues(ReturnValue.ALL_NEW)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)).attributes();
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
