package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Conversions between domain values and DynamoDB attribute values. */
final class Attrs {

    private Attrs() {
    }

    static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    static AttributeValue n(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    static Map<String, AttributeValue> key(String pk, String sk) {
        Map<String, AttributeValue> key = new HashMap<>();
        key.put(TableKeys.PK, s(pk));
        key.put(TableKeys.SK, s(sk));
        return key;
    }

    static String string(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        return value == null || value.s() == null ? null : value.s();
    }

    static long number(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        return value == null || value.n() == null ? 0 : Long.parseLong(value.n());
    }

    static AttributeValue usage(TokenUsage usage) {
        return AttributeValue.fromM(Map.of(
                "input", n(usage.inputTokens()),
                "output", n(usage.outputTokens()),
                "cacheRead", n(usage.cacheReadTokens()),
                "cacheWrite", n(usage.cacheWriteTokens())));
    }

    static TokenUsage usage(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        if (value == null || !value.hasM()) {
            return null;
        }
        Map<String, AttributeValue> m = value.m();
        return new TokenUsage(number(m, "input"), number(m, "output"), number(m, "cacheRead"),
                number(m, "cacheWrite"));
    }

    static AttributeValue ref(PayloadRef ref) {
        return AttributeValue.fromM(Map.of(
                "location", s(ref.location().name()),
                "requestId", s(ref.requestId()),
                "kind", s(ref.kind().name()),
                "sha256", s(ref.sha256()),
                "size", n(ref.sizeBytes()),
                "expiresAtMillis", n(ref.expiresAtMillis())));
    }

    static PayloadRef ref(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        if (value == null || !value.hasM()) {
            return null;
        }
        Map<String, AttributeValue> m = value.m();
        return new PayloadRef(PayloadRef.Location.valueOf(string(m, "location")), string(m, "requestId"),
                PayloadKind.valueOf(string(m, "kind")), string(m, "sha256"), number(m, "size"),
                number(m, "expiresAtMillis"));
    }

    static boolean isLive(Map<String, AttributeValue> item, long nowMillis) {
        return item != null && !item.isEmpty() && number(item, TableKeys.EXPIRES_AT) > TableKeys.nowSeconds(nowMillis);
    }
}
