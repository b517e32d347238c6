package dev.trafficshaper.aws.dynamodb;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The table every adapter here expects: string {@code pk}/{@code sk}, on-demand capacity, TTL on
 * {@code expiresAt}, and one sparse global secondary index, {@value TableKeys#UNSETTLED_INDEX}
 * (string {@code unsettledPk}/{@code unsettledSk}, all attributes), that holds only ADMITTED and
 * INVOKING requests, for the sweeper. Every other access pattern is a key lookup or a Query on one
 * partition key. The CDK stack declares the same table; this creates it for emulators and tools.
 */
public final class TableLayout {

    private TableLayout() {
    }

    public static void create(DynamoDbClient dynamoDb, String table) {
        dynamoDb.createTable(b -> b.tableName(table)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(
                        AttributeDefinition.builder().attributeName(TableKeys.PK)
                                .attributeType(ScalarAttributeType.S).build(),
                        AttributeDefinition.builder().attributeName(TableKeys.SK)
                                .attributeType(ScalarAttributeType.S).build(),
                        AttributeDefinition.builder().attributeName(TableKeys.UNSETTLED_PK)
                                .attributeType(ScalarAttributeType.S).build(),
                        AttributeDefinition.builder().attributeName(TableKeys.UNSETTLED_SK)
                                .attributeType(ScalarAttributeType.S).build())
                .keySchema(
                        KeySchemaElement.builder().attributeName(TableKeys.PK).keyType(KeyType.HASH).build(),
                        KeySchemaElement.builder().attributeName(TableKeys.SK).keyType(KeyType.RANGE).build())
                .globalSecondaryIndexes(GlobalSecondaryIndex.builder().indexName(TableKeys.UNSETTLED_INDEX)
                        .keySchema(
                                KeySchemaElement.builder().attributeName(TableKeys.UNSETTLED_PK)
                                        .keyType(KeyType.HASH).build(),
                                KeySchemaElement.builder().attributeName(TableKeys.UNSETTLED_SK)
                                        .keyType(KeyType.RANGE).build())
                        .projection(Projection.builder().projectionType(ProjectionType.ALL).build())
                        .build()));
        dynamoDb.waiter().waitUntilTableExists(b -> b.tableName(table));
        dynamoDb.updateTimeToLive(b -> b.tableName(table).timeToLiveSpecification(
                t -> t.attributeName(TableKeys.EXPIRES_AT).enabled(true)));
    }
}
