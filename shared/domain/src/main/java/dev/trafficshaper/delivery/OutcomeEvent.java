package dev.trafficshaper.delivery;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.request.RequestRecord;

/**
 * The detail of the outcome event: a reference to the request and a summary of how it ended,
 * never the response body. An EventBridge entry holds at most 256 KB and a model's answer can be
 * larger, so the event says where to read it ({@code statusUrl}, and {@code resultKey}, the
 * result's object key in the payload bucket when it is stored there, beside {@code resultSizeBytes}) and stays a few hundred
 * bytes whatever the answer's size. The summary fields are those of {@code GET} ({@link RequestView}).
 */
public final class OutcomeEvent {

    /** Longest {@code detail} text the event carries; a longer one is cut here. */
    public static final int MAX_DETAIL_CHARS = 1024;

    private OutcomeEvent() {
    }

    public static String json(RequestRecord record) {
        ObjectNode node = RequestView.summary(record);
        node.put("statusUrl", statusUrl(record.requestId()));
        String detail = node.path("detail").asText(null);
        if (detail != null && detail.length() > MAX_DETAIL_CHARS) {
            node.put("detail", detail.substring(0, MAX_DETAIL_CHARS));
        }
        PayloadRef result = record.resultRef();
        if (result != null) {
            if (result.location() == PayloadRef.Location.OBJECT) {
                node.put("resultKey", result.key());
            }
            node.put("resultSizeBytes", result.sizeBytes());
        }
        return RequestView.write(node);
    }

    /** The path of the request's status, relative to the API's base URL. */
    public static String statusUrl(String requestId) {
        return "/v1/requests/" + requestId;
    }
}
