package dev.trafficshaper.submission;

import java.util.regex.Pattern;

/**
 * What a caller's {@code requestId} may be. It becomes the last segment of
 * {@code /v1/requests/{id}}, so it may only use the characters RFC 3986 leaves unreserved
 * ({@code A-Z a-z 0-9 . _ ~ -}), which survive every client, proxy and URL normaliser
 * unchanged; {@code .} and {@code ..} are refused because clients resolve them as path steps.
 */
public final class RequestIds {

    public static final int MAX_LENGTH = 128;
    private static final Pattern UNRESERVED = Pattern.compile("[A-Za-z0-9._~-]+");

    private RequestIds() {
    }

    /** Returns {@code requestId} if a caller may choose it, else throws naming {@code requestId}. */
    public static String require(String requestId) {
        if (requestId.isEmpty()) {
            throw invalid("requestId must not be empty");
        }
        if (requestId.length() > MAX_LENGTH) {
            throw invalid("requestId: at most " + MAX_LENGTH + " characters, was " + requestId.length());
        }
        if (!UNRESERVED.matcher(requestId).matches()) {
            throw invalid("requestId: only letters, digits and . _ ~ - are allowed");
        }
        if (requestId.equals(".") || requestId.equals("..")) {
            throw invalid("requestId must not be '.' or '..' (they are path steps in a URL)");
        }
        return requestId;
    }

    /** Whether a path segment could be a request id at all (for {@code GET}, which answers 404 otherwise). */
    public static boolean isValid(String requestId) {
        try {
            require(requestId);
            return true;
        } catch (InvalidSubmissionException e) {
            return false;
        }
    }

    private static InvalidSubmissionException invalid(String message) {
        return new InvalidSubmissionException("requestId", message);
    }
}
