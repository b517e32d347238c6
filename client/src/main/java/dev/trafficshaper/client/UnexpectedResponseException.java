package dev.trafficshaper.client;

/**
 * The API answered with a status its contract does not define for the call, or with a body the
 * client cannot read: for example {@code 403} from IAM authorization, or {@code 429}/{@code 5xx}
 * from API Gateway itself rather than from the shaper.
 */
public final class UnexpectedResponseException extends ShaperException {

    private static final int MAX_BODY_IN_MESSAGE = 300;

    private final int statusCode;
    private final String body;

    UnexpectedResponseException(String call, int statusCode, String body) {
        super(call + " answered " + statusCode + (body == null || body.isBlank() ? "" : ": " + abbreviate(body)));
        this.statusCode = statusCode;
        this.body = body == null ? "" : body;
    }

    public int statusCode() {
        return statusCode;
    }

    /** The response body as received, empty when there was none. */
    public String body() {
        return body;
    }

    /** Whether the same call may succeed later: {@code 429} and {@code 5xx}. */
    public boolean isRetryable() {
        return statusCode == 429 || statusCode >= 500;
    }

    private static String abbreviate(String body) {
        String flat = body.strip().replaceAll("\\s+", " ");
        return flat.length() <= MAX_BODY_IN_MESSAGE ? flat : flat.substring(0, MAX_BODY_IN_MESSAGE) + "...";
    }
}
