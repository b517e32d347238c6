package dev.trafficshaper.delivery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.lifecycle.ModelStatus;
import dev.trafficshaper.lifecycle.ModelStatusBoard;
import dev.trafficshaper.lifecycle.StartEstimate;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadStore;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequestStore;
import java.util.Comparator;
import java.util.Optional;

/**
 * {@code GET /v1/requests/{id}} and {@code GET /v1/models}. A request is visible only to the
 * tenant that submitted it: another tenant's id is reported exactly like an unknown one.
 *
 * <p>{@code Retry-After} on a pending request says when asking again can first tell something
 * new, so a caller that follows it polls a few times per request, not once a second: a queued
 * request is told its ETA ({@link StartEstimate}: the time until the drainer is predicted to admit
 * it), bounded by its deadline (it has an outcome then at the latest) and by
 * {@link #MAX_RETRY_AFTER_SECONDS}; an admitted or invoking request, whose Bedrock call has no
 * prediction, is told to wait as long as it has been running (at least one second), so the polls
 * of a long call double their spacing: a call of {@code d} seconds costs about {@code log2(d) + 1}
 * reads.
 */
public final class StatusService {

    /**
     * Longest {@code Retry-After} the API suggests for a queued request: a prediction further out
     * than this is likely to move as the queue changes, so it is read again by then.
     */
    public static final long MAX_RETRY_AFTER_SECONDS = 300;
    /** Longest {@code Retry-After} while the Bedrock call runs: calls last seconds to minutes. */
    public static final long MAX_INVOKING_RETRY_AFTER_SECONDS = 30;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ModelCatalog catalog;
    private final RequestStore requests;
    private final PayloadStore payloads;
    private final ModelStatusBoard board;

    private StatusService(ModelCatalog catalog, RequestStore requests, PayloadStore payloads, ModelStatusBoard board) {
        this.catalog = catalog;
        this.requests = requests;
        this.payloads = payloads;
        this.board = board;
    }

    public static StatusService create(ModelCatalog catalog, RequestStore requests, PayloadStore payloads,
                                       ModelStatusBoard board) {
        return new StatusService(catalog, requests, payloads, board);
    }

    /** The answer to a status read: HTTP status, {@code Retry-After} seconds (0: none) and body. */
    public record StatusView(int httpStatus, long retryAfterSeconds, String json, RequestRecord record) {
    }

    public Optional<StatusView> status(String requestId, String tenant, long nowMillis) {
        Optional<RequestRecord> found = requests.find(requestId, nowMillis);
        if (found.isEmpty() || !found.get().tenant().equals(tenant)) {
            return Optional.empty();
        }
        return Optional.of(view(found.get(), nowMillis));
    }

    /** The view of a record already read, e.g. for a webhook. */
    public StatusView view(RequestRecord record, long nowMillis) {
        Payload response = null;
        if (record.state() == RequestState.SUCCEEDED && record.resultRef() != null) {
            response = payloads.get(record.resultRef(), nowMillis).orElse(null);
        }
        long retryAfter = record.isTerminal() ? 0 : retryAfter(record, nowMillis);
        return new StatusView(record.httpStatus(), retryAfter, RequestView.json(record, response), record);
    }

    private long retryAfter(RequestRecord record, long nowMillis) {
        if (record.state() != RequestState.QUEUED) {
            long since = record.admittedAtMillis() > 0 ? record.admittedAtMillis() : record.updatedAtMillis();
            return clamp(seconds(nowMillis - since), MAX_INVOKING_RETRY_AFTER_SECONDS);
        }
        long startAt = catalog.find(record.modelKey())
                .map(model -> StartEstimate.startAt(model, board.read(model.key()), record.lane(), nowMillis))
                .orElse(nowMillis);
        long untilStart = seconds(startAt - nowMillis);
        long untilDeadline = seconds(record.deadlineMillis() - nowMillis);
        return clamp(Math.min(untilStart, untilDeadline), MAX_RETRY_AFTER_SECONDS);
    }

    private static long seconds(long millis) {
        return (Math.max(0, millis) + 999) / 1000;
    }

    private static long clamp(long seconds, long max) {
        return Math.max(1, Math.min(max, seconds));
    }

    /** Every configured model with its quotas, pacing target, queue depth and the wait a new request would see. */
    public String models(long nowMillis) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode list = root.putArray("models");
        catalog.all().stream().sorted(Comparator.comparing(ModelConfig::key)).forEach(model -> {
            Optional<ModelStatus> status = board.read(model.key());
            boolean fresh = status.isPresent() && !status.get().isStale(nowMillis, StartEstimate.MAX_STATUS_AGE_MILLIS);
            ObjectNode node = list.addObject();
            node.put("key", model.key());
            node.put("modelId", model.modelId());
            node.put("backend", model.backend().wireName());
            node.put("bodyKey", model.backend().bodyKey());
            Quota q = model.quota();
            ObjectNode quota = node.putObject("quota");
            quota.put("tpm", q.tpm());
            quota.put("rpm", q.rpm());
            quota.put("inputTpm", q.inputTpm());
            quota.put("outputTpm", q.outputTpm());
            quota.put("outputBurndown", q.outputBurndown());
            node.put("targetUtilization", model.pacer().targetUtilization());
            node.put("currentTarget", fresh ? status.get().target() : model.pacer().targetUtilization());
            node.put("maxTokens", model.maxTokensLimit());
            node.put("defaultDeadlineSeconds", model.defaultDeadlineSeconds());
            node.put("maxDeadlineSeconds", model.maxDeadlineSeconds());
            model.fallback().ifPresent(fallback -> node.put("fallback", fallback));
            node.put("queueDepth", fresh ? status.get().queueDepth() : 0);
            long start = StartEstimate.startAt(model, status, Lane.INTERACTIVE, nowMillis);
            node.put("etaSeconds", (Math.max(0, start - nowMillis) + 999) / 1000);
            node.put("drainerActive", fresh);
        });
        try {
            return JSON.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
