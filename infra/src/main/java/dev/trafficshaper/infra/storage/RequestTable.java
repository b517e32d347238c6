package dev.trafficshaper.infra.storage;

import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.BillingMode;
import software.amazon.awscdk.services.dynamodb.GlobalSecondaryIndexProps;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.dynamodb.PointInTimeRecoverySpecification;
import software.amazon.awscdk.services.dynamodb.ProjectionType;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.dynamodb.TableEncryption;
import software.amazon.awscdk.services.kms.IKey;
import software.constructs.Construct;

/**
 * The shaper's single table: model configuration, drainer leases, sharded queues, request status
 * and usage settlements, told apart by the prefixes of {@code pk}/{@code sk}. On-demand billing
 * because load is bursty by nature. One sparse secondary index, {@value #UNSETTLED_INDEX}: only
 * requests that are ADMITTED or INVOKING carry its keys, so the sweeper finds an admission that was
 * lost (a crashed drainer, a stopped processor) by reading what is unsettled and nothing else.
 */
public final class RequestTable extends Construct {

    public static final String PARTITION_KEY = "pk";
    public static final String SORT_KEY = "sk";
    public static final String TTL_ATTRIBUTE = "expiresAt";
    public static final String UNSETTLED_INDEX = "unsettled";
    public static final String UNSETTLED_PARTITION_KEY = "unsettledPk";
    public static final String UNSETTLED_SORT_KEY = "unsettledSk";

    private final ITable table;

    public RequestTable(Construct scope, String id, IKey key, boolean production) {
        super(scope, id);
        this.table = create(key, production);
    }

    private RequestTable(Construct scope, String id, ITable existing) {
        super(scope, id);
        this.table = existing;
    }

    /**
     * A table the deployment brings: it must have this table's key schema ({@value #PARTITION_KEY},
     * {@value #SORT_KEY}, both strings), TTL on {@value #TTL_ATTRIBUTE} and the global secondary index
     * {@value #UNSETTLED_INDEX} ({@value #UNSETTLED_PARTITION_KEY}, {@value #UNSETTLED_SORT_KEY}, both
     * strings, all attributes projected); the shaper's items keep to the {@code MODEL#} and
     * {@code REQ#} key prefixes.
     */
    public static RequestTable existing(Construct scope, String id, ITable table) {
        return new RequestTable(scope, id, table);
    }

    private Table create(IKey key, boolean production) {
        Table created = Table.Builder.create(this, "Table")
                .partitionKey(Attribute.builder().name(PARTITION_KEY).type(AttributeType.STRING).build())
                .sortKey(Attribute.builder().name(SORT_KEY).type(AttributeType.STRING).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .pointInTimeRecoverySpecification(PointInTimeRecoverySpecification.builder()
                        .pointInTimeRecoveryEnabled(true)
                        .build())
                .encryption(TableEncryption.CUSTOMER_MANAGED)
                .encryptionKey(key)
                .timeToLiveAttribute(TTL_ATTRIBUTE)
                .deletionProtection(production)
                .removalPolicy(production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY)
                .build();
        created.addGlobalSecondaryIndex(GlobalSecondaryIndexProps.builder().indexName(UNSETTLED_INDEX)
                .partitionKey(Attribute.builder().name(UNSETTLED_PARTITION_KEY).type(AttributeType.STRING).build())
                .sortKey(Attribute.builder().name(UNSETTLED_SORT_KEY).type(AttributeType.STRING).build())
                .projectionType(ProjectionType.ALL)
                .build());
        return created;
    }

    /** The ARN of the unsettled index, for the sweeper's Query. */
    public String unsettledIndexArn() {
        return table.getTableArn() + "/index/" + UNSETTLED_INDEX;
    }

    public ITable table() {
        return table;
    }

    public String tableName() {
        return table.getTableName();
    }

    public String tableArn() {
        return table.getTableArn();
    }
}
