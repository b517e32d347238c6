package dev.trafficshaper.infra.storage;

import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.BillingMode;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.dynamodb.PointInTimeRecoverySpecification;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.dynamodb.TableEncryption;
import software.amazon.awscdk.services.kms.IKey;
import software.constructs.Construct;

/**
 * The shaper's single table: model configuration, drainer leases, sharded queues, request status
 * and usage settlements, told apart by the prefixes of {@code pk}/{@code sk}. On-demand billing
 * because load is bursty by nature; no secondary index, since every access is by key.
 */
public final class RequestTable extends Construct {

    public static final String PARTITION_KEY = "pk";
    public static final String SORT_KEY = "sk";
    public static final String TTL_ATTRIBUTE = "expiresAt";

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
     * {@value #SORT_KEY}, both strings) and TTL on {@value #TTL_ATTRIBUTE}; the shaper's items keep to
     * the {@code MODEL#} and {@code REQ#} key prefixes.
     */
    public static RequestTable existing(Construct scope, String id, ITable table) {
        return new RequestTable(scope, id, table);
    }

    private Table create(IKey key, boolean production) {
        return Table.Builder.create(this, "Table")
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
