package dev.trafficshaper.aws.dynamodb;

import static dev.trafficshaper.aws.dynamodb.Attrs.n;
import static dev.trafficshaper.aws.dynamodb.Attrs.s;

import dev.trafficshaper.aws.s3.S3PayloadObjects;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.payload.PayloadStore;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Bodies up to the policy's inline limit as items {@code REQ#{id}/PAYLOAD#{kind}#{sha256}}; larger
 * ones in S3 (claim check). The key is the content's digest, so writing the same body twice is
 * harmless and a different body can never replace a stored one.
 */
public final class DynamoDbPayloadStore implements PayloadStore {

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final S3PayloadObjects objects;
    private final PayloadPolicy policy;

    private DynamoDbPayloadStore(DynamoDbClient dynamoDb, String table, S3PayloadObjects objects,
                                 PayloadPolicy policy) {
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.objects = objects;
        this.policy = policy;
    }

    public static DynamoDbPayloadStore create(DynamoDbClient dynamoDb, String table, S3PayloadObjects objects,
                                              PayloadPolicy policy) {
        return new DynamoDbPayloadStore(dynamoDb, table, objects, policy);
    }

    @Override
    public PayloadRef put(String requestId, PayloadKind kind, Payload payload, long expiresAtMillis) {
        PayloadRef ref = policy.place(requestId, kind, payload, expiresAtMillis);
        if (ref.location() == PayloadRef.Location.OBJECT) {
            objects.put(ref.key(), payload.bytes(), ref.sha256());
            return ref;
        }
        try {
            dynamoDb.updateItem(b -> b.tableName(table).key(key(ref))
                    .updateExpression("SET #body = :body, #size = :size, #entity = :entity, #expiresAt = :expiresAt")
                    .conditionExpression("attribute_not_exists(#expiresAt) OR #expiresAt < :expiresAt")
                    .expressionAttributeNames(Map.of("#body", "body", "#size", "size", "#entity", "entity",
                            "#expiresAt", TableKeys.EXPIRES_AT))
                    .expressionAttributeValues(Map.of(":body", AttributeValue.fromB(SdkBytes.fromByteArray(
                            payload.bytes())), ":size", n(payload.size()), ":entity", s("payload"),
                            ":expiresAt", n(ref.expiresAtMillis() / 1000))));
        } catch (ConditionalCheckFailedException e) {
            // Already stored, and kept at least as long: the same digest means the same body.
        }
        return ref;
    }

    @Override
    public Optional<Payload> get(PayloadRef ref, long nowMillis) {
        if (ref.expiresAtMillis() <= nowMillis) {
            return Optional.empty();
        }
        if (ref.location() == PayloadRef.Location.OBJECT) {
            return objects.get(ref.key()).map(bytes -> Payload.trusted(bytes, ref.sha256()));
        }
        Map<String, AttributeValue> item = dynamoDb.getItem(b -> b.tableName(table).key(key(ref))).item();
        if (!Attrs.isLive(item, nowMillis)) {
            return Optional.empty();
        }
        return Optional.of(Payload.trusted(item.get("body").b().asByteArray(), ref.sha256()));
    }

    private static Map<String, AttributeValue> key(PayloadRef ref) {
        return Attrs.key(TableKeys.requestPk(ref.requestId()), TableKeys.payloadSk(ref.kind(), ref.sha256()));
    }
}
