package dev.trafficshaper.testing;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The size DynamoDB bills an item by: each attribute's name (UTF-8 bytes) plus its value. Strings
 * count their UTF-8 bytes, binaries their bytes, numbers about one byte per two significant digits
 * plus one, booleans and nulls one byte, lists and maps three bytes plus one per element plus their
 * elements. Write units are per started 1 KB of it, read units per started 4 KB.
 */
public final class DynamoDbItemSize {

    private DynamoDbItemSize() {
    }

    public static long of(Map<String, AttributeValue> item) {
        if (item == null) {
            return 0;
        }
        long size = 0;
        for (Map.Entry<String, AttributeValue> attribute : item.entrySet()) {
            size += utf8(attribute.getKey()) + value(attribute.getValue());
        }
        return size;
    }

    private static long value(AttributeValue value) {
        if (value.s() != null) {
            return utf8(value.s());
        }
        if (value.n() != null) {
            return number(value.n());
        }
        if (value.b() != null) {
            return value.b().asByteArray().length;
        }
        if (value.bool() != null || Boolean.TRUE.equals(value.nul())) {
            return 1;
        }
        if (value.hasSs()) {
            return value.ss().stream().mapToLong(DynamoDbItemSize::utf8).sum();
        }
        if (value.hasNs()) {
            return value.ns().stream().mapToLong(DynamoDbItemSize::number).sum();
        }
        if (value.hasBs()) {
            return value.bs().stream().mapToLong(b -> b.asByteArray().length).sum();
        }
        if (value.hasL()) {
            return 3 + value.l().stream().mapToLong(element -> 1 + value(element)).sum();
        }
        if (value.hasM()) {
            return 3 + value.m().entrySet().stream()
                    .mapToLong(entry -> 1 + utf8(entry.getKey()) + value(entry.getValue())).sum();
        }
        return 1;
    }

    private static long number(String n) {
        String digits = n.replace("-", "").replace(".", "").replaceAll("^0+", "").replaceAll("0+$", "");
        return (digits.length() + 1) / 2 + 1;
    }

    private static long utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    /** Write request units for an item of {@code bytes}: one per started KB, at least one. */
    public static long writeUnits(long bytes) {
        return Math.max(1, (bytes + 1023) / 1024);
    }

    /** Read request units, in halves, for {@code bytes} read: a started 4 KB is 2 halves consistent, 1 eventual. */
    public static long readHalfUnits(long bytes, boolean consistent) {
        long blocks = Math.max(1, (bytes + 4095) / 4096);
        return consistent ? 2 * blocks : blocks;
    }
}
