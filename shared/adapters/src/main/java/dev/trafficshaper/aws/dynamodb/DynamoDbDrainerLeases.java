package dev.trafficshaper.aws.dynamodb;

import static dev.trafficshaper.aws.dynamodb.Attrs.n;
import static dev.trafficshaper.aws.dynamodb.Attrs.s;

import dev.trafficshaper.lease.DrainerLeases;
import dev.trafficshaper.lease.Lease;
import dev.trafficshaper.lease.LeaseAttempt;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * Drainer leases as one item per model. Acquisition is a conditional UpdateItem that succeeds
 * only when no lease is active and adds one to the fencing counter in the same write.
 */
public final class DynamoDbDrainerLeases implements DrainerLeases {

    private static final Map<String, String> NAMES = Map.of("#owner", LeaseItems.OWNER, "#fence", LeaseItems.FENCE,
            "#leaseUntil", LeaseItems.LEASE_UNTIL);

    private final DynamoDbClient dynamoDb;
    private final String table;

    private DynamoDbDrainerLeases(DynamoDbClient dynamoDb, String table) {
        this.dynamoDb = dynamoDb;
        this.table = table;
    }

    public static DynamoDbDrainerLeases create(DynamoDbClient dynamoDb, String table) {
        return new DynamoDbDrainerLeases(dynamoDb, table);
    }

    @Override
    public LeaseAttempt acquire(String modelKey, String owner, long durationMillis, long nowMillis) {
        requirePositive(durationMillis);
        try {
            Map<String, AttributeValue> granted = dynamoDb.updateItem(b -> b.tableName(table)
                    .key(LeaseItems.key(modelKey))
                    .updateExpression("SET #owner = :owner, #leaseUntil = :until, #model = :model, #entity = :entity"
                            + " ADD #fence :one")
                    .conditionExpression("attribute_not_exists(#pk) OR #leaseUntil <= :nowMillis")
                    .expressionAttributeNames(Map.of("#owner", LeaseItems.OWNER, "#fence", LeaseItems.FENCE,
                            "#leaseUntil", LeaseItems.LEASE_UNTIL, "#model", LeaseItems.MODEL, "#entity", "entity",
                            "#pk", TableKeys.PK))
                    .expressionAttributeValues(Map.of(":owner", s(owner),
                            ":until", n(Math.addExact(nowMillis, durationMillis)), ":model", s(modelKey),
                            ":entity", s("lease"), ":one", n(1), ":nowMillis", n(nowMillis)))
                    .returnValues(ReturnValue.ALL_NEW)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))
                    .attributes();
            return LeaseAttempt.granted(LeaseItems.lease(granted));
        } catch (ConditionalCheckFailedException e) {
            if (e.item() == null || e.item().isEmpty()) {
                throw new IllegalStateException("lease on " + modelKey + " refused without its holder", e);
            }
            return LeaseAttempt.heldBy(LeaseItems.lease(e.item()));
        }
    }

    @Override
    public Optional<Lease> renew(Lease lease, long durationMillis, long nowMillis) {
        requirePositive(durationMillis);
        try {
            Map<String, AttributeValue> renewed = dynamoDb.updateItem(b -> b.tableName(table)
                    .key(LeaseItems.key(lease.modelKey()))
                    .updateExpression("SET #leaseUntil = :until")
                    .conditionExpression("#owner = :owner AND #fence = :fence AND #leaseUntil > :nowMillis")
                    .expressionAttributeNames(NAMES)
                    .expressionAttributeValues(Map.of(":owner", s(lease.owner()), ":fence", n(lease.fencingToken()),
                            ":until", n(Math.addExact(nowMillis, durationMillis)), ":nowMillis", n(nowMillis)))
                    .returnValues(ReturnValue.ALL_NEW))
                    .attributes();
            return Optional.of(LeaseItems.lease(renewed));
        } catch (ConditionalCheckFailedException e) {
            return Optional.empty();
        }
    }

    @Override
    public boolean release(Lease lease, long nowMillis) {
        try {
            dynamoDb.updateItem(b -> b.tableName(table)
                    .key(LeaseItems.key(lease.modelKey()))
                    .updateExpression("SET #leaseUntil = :nowMillis")
                    .conditionExpression("#owner = :owner AND #fence = :fence")
                    .expressionAttributeNames(NAMES)
                    .expressionAttributeValues(Map.of(":owner", s(lease.owner()), ":fence", n(lease.fencingToken()),
                            ":nowMillis", n(nowMillis))));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    @Override
    public Optional<Lease> current(String modelKey, long nowMillis) {
        Map<String, AttributeValue> item = dynamoDb.getItem(b -> b.tableName(table).key(LeaseItems.key(modelKey))
                .consistentRead(true)).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(LeaseItems.lease(item)).filter(lease -> lease.isActive(nowMillis));
    }

    private static void requirePositive(long durationMillis) {
        if (durationMillis < 1) {
            throw new IllegalArgumentException("durationMillis must be positive");
        }
    }
}
