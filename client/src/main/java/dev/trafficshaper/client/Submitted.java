package dev.trafficshaper.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.util.Optional;

/**
 * The API's answer to a submission: {@code 202} for a new or still-pending request, {@code 200}
 * when a resubmitted id had already finished. Either way, {@link ShaperClient#await(String)} or
 * {@link ShaperClient#status(String)} gives the result.
 */
public final class Submitted {

    private final String requestId;
    private final String status;
    private final URI statusUrl;
    private final int httpStatus;
    private final JsonNode json;

    private Submitted(String requestId, String status, URI statusUrl, int httpStatus, JsonNode json) {
        this.requestId = requestId;
        this.status = status;
        this.statusUrl = statusUrl;
        this.httpStatus = httpStatus;
        this.json = json;
    }

    static Submitted fromResponse(int httpStatus, String body, String submittedId) {
        JsonNode json = Json.parseLeniently(body);
        String requestId = Json.text(json, "requestId");
        if (requestId == null) {
            requestId = submittedId;
        }
        if (requestId == null) {
            throw new UnexpectedResponseException("POST /v1/requests (no requestId in the body)", httpStatus, body);
        }
        String status = Json.text(json, "status");
        if (status == null) {
            status = httpStatus == 200 ? "SUCCEEDED" : RequestStatus.PENDING;
        }
        return new Submitted(requestId, status, statusUrl(json), httpStatus, json);
    }

    private static URI statusUrl(JsonNode json) {
        String text = Json.text(json, "statusUrl");
        if (text == null) {
            return null;
        }
        try {
            return URI.create(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    public String requestId() {
        return requestId;
    }

    /** The request's state as the API reported it, e.g. {@code QUEUED}. */
    public String status() {
        return status;
    }

    /** Where to read the status, as the API reported it (absolute or relative to the API). */
    public Optional<URI> statusUrl() {
        return Optional.ofNullable(statusUrl);
    }

    /** {@code 202}, or {@code 200} for a resubmitted id that had already finished. */
    public int httpStatus() {
        return httpStatus;
    }

    /** A copy of the response body. */
    public JsonNode json() {
        return json.deepCopy();
    }

    @Override
    public String toString() {
        return "Submitted[" + requestId + " " + status + " (" + httpStatus + ")]";
    }
}
