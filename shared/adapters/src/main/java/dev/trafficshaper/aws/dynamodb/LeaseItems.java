package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.lease.Lease;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The lease item {@code MODEL#{m}/LEASE}. It has no TTL: it must outlive every lease so its
 * fencing counter never restarts.
 */
final class LeaseItems {

    static final String OWNER = "owner";
    static final String FENCE = "fence";
    static final String LEASE_UNTIL = "leaseUntil";
    static final String MODEL = "model";

    private LeaseItems() {
    }

    static Map<String, AttributeValue> key(String modelKey) {
        return Attrs.key(TableKeys.modelPk(modelKey), TableKeys.LEASE_SK);
    }

    static Lease lease(Map<String, AttributeValue> item) {
        return new Lease(Attrs.string(item, MODEL), Attrs.string(item, OWNER), Attrs.number(item, FENCE),
                Attrs.number(item, LEASE_UNTIL));
    }
}
