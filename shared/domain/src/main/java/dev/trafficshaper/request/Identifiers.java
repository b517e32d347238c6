package dev.trafficshaper.request;

import java.util.regex.Pattern;

/**
 * Rules for ids that become part of stored keys. Keys join parts with {@code #}, so an id may not
 * contain one; the length cap keeps every key far below DynamoDB's 1 KB sort-key limit.
 */
public final class Identifiers {

    public static final int MAX_LENGTH = 128;
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9._~:-]+");

    private Identifiers() {
    }

    /** Longest tenant: an IAM principal ARN (a role session ARN can reach about 2 KB). */
    public static final int MAX_TENANT_LENGTH = 2048;

    /**
     * Returns {@code tenant} if usable. A tenant is the authenticated principal (an IAM ARN, with
     * {@code /} and {@code :}); it is stored as an attribute and enters a key only as a digest
     * (queue sort keys), so only its presence and length are checked.
     */
    public static String requireTenant(String tenant) {
        if (tenant == null || tenant.isBlank()) {
            throw new IllegalArgumentException("tenant: required");
        }
        if (tenant.length() > MAX_TENANT_LENGTH) {
            throw new IllegalArgumentException("tenant: at most " + MAX_TENANT_LENGTH + " characters");
        }
        return tenant;
    }

    /** Returns {@code value} if it is a usable id, else throws naming {@code field}. */
    public static String require(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(field + ": required");
        }
        if (value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(field + ": at most " + MAX_LENGTH + " characters, was " + value.length());
        }
        if (!SAFE.matcher(value).matches()) {
            throw new IllegalArgumentException(field + ": only letters, digits and . _ ~ : - are allowed, was '"
                    + value + "'");
        }
        return value;
    }
}
