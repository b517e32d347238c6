package dev.trafficshaper.lifecycle;

import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.payload.InvalidPayloadException;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.payload.PayloadStore;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.submission.CharacterTokenEstimator;
import dev.trafficshaper.submission.InvalidSubmissionException;
import dev.trafficshaper.submission.ModelFit;
import dev.trafficshaper.submission.OutgoingRequest;
import dev.trafficshaper.submission.Submission;
import dev.trafficshaper.submission.SubmissionParser;
import dev.trafficshaper.submission.TokenEstimator;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The front door ({@code POST /v1/requests}): turns a body into a {@link Ticket} or refuses it
 * before anything is stored. Validates, estimates the input, predicts the start from the
 * drainer's published status, routes to the fallback model when only that one can meet the
 * deadline, refuses with a retry hint when neither can, and stores the request the Bedrock
 * Processor will send ({@link OutgoingRequest}: the caller's body byte for byte) by reference.
 *
 * <p>Idempotent on a caller's {@code requestId}: a known id with the same body (by
 * {@link dev.trafficshaper.submission.BodyDigest}) returns the stored request; with another body,
 * or from another tenant, it is a conflict.
 */
public final class SubmissionService {

    private final ModelCatalog catalog;
    private final SubmissionParser parser;
    private final TokenEstimator estimator;
    private final PayloadStore payloads;
    private final RequestStore requests;
    private final ModelStatusBoard board;
    private final Supplier<String> ids;

    private SubmissionService(Builder b) {
        this.catalog = b.catalog;
        this.parser = b.parser;
        this.estimator = b.estimator;
        this.payloads = b.payloads;
        this.requests = b.requests;
        this.board = b.board;
        this.ids = b.ids;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** What came of a submission: a new ticket to start, or the request stored earlier under its id. */
    public record Accepted(Ticket ticket, RequestRecord existing) {

        public String requestId() {
            return ticket != null ? ticket.requestId() : existing.requestId();
        }

        public boolean isNew() {
            return ticket != null;
        }
    }

    /**
     * @throws InvalidSubmissionException  bad input (400); nothing stored
     * @throws SubmissionRefusedException  cannot meet its deadline on any model (429); nothing stored
     * @throws RequestIdConflictException  the id belongs to another tenant, or came with another body (409);
     *                                     nothing stored
     */
    public Accepted submit(String tenant, byte[] body, long nowMillis) {
        Submission submission = parser.parse(body);
        if (submission.requestId() != null) {
            Optional<RequestRecord> known = requests.find(submission.requestId(), nowMillis);
            if (known.isPresent()) {
                if (!known.get().tenant().equals(tenant)) {
                    throw new RequestIdConflictException(submission.requestId());
                }
                String stored = known.get().bodyDigest();
                if (stored != null && !stored.equals(submission.bodyDigest())) {
                    throw RequestIdConflictException.differentBody(submission.requestId());
                }
                return new Accepted(null, known.get());
            }
        }
        String requestId = submission.requestIdIfGiven().orElseGet(ids);
        long deadline = nowMillis + submission.deadlineSeconds() * 1000;
        Routed routed = route(submission, deadline, nowMillis);
        PayloadRef ref;
        try {
            ref = payloads.put(requestId, PayloadKind.REQUEST, OutgoingRequest.forModel(routed.model(), submission),
                    deadline + NewRequest.DEFAULT_RETENTION_MILLIS);
        } catch (InvalidPayloadException e) {
            throw new InvalidSubmissionException(submission.backend().bodyKey(), e.getMessage());
        }
        Ticket ticket = new Ticket(requestId, tenant, routed.model().key(), submission.lane(), nowMillis, deadline,
                routed.estimate(), ref, submission.callbackUrl(), submission.bodyDigest());
        return new Accepted(ticket, null);
    }

    private record Routed(ModelConfig model, TokenUsage estimate) {
    }

    private Routed route(Submission submission, long deadline, long nowMillis) {
        ModelConfig primary = catalog.require(submission.modelKey());
        List<ModelConfig> choices = new ArrayList<>();
        choices.add(primary);
        primary.fallback().flatMap(catalog::find).ifPresent(choices::add);
        long primaryStart = Long.MAX_VALUE;
        InvalidSubmissionException firstInvalid = null;
        for (ModelConfig model : choices) {
            TokenUsage estimate;
            try {
                estimate = estimate(model, submission);
            } catch (InvalidSubmissionException e) {
                if (model == primary) {
                    throw e;
                }
                firstInvalid = e;
                continue;
            }
            long start = StartEstimate.startAt(model, board.read(model.key()), submission.lane(), nowMillis);
            if (model == primary) {
                primaryStart = start;
            }
            if (start < deadline) {
                return new Routed(model, estimate);
            }
        }
        long retryAfter = Math.max(1, (primaryStart - deadline + 999) / 1000);
        String fallbackNote = choices.size() > 1 && firstInvalid == null ? " (nor can its fallback "
                + choices.get(1).key() + ")" : "";
        throw new SubmissionRefusedException("model " + primary.key() + " cannot start this request within its "
                + submission.deadlineSeconds() + " s deadline" + fallbackNote + "; predicted wait "
                + Math.max(0, (primaryStart - nowMillis) / 1000) + " s", retryAfter);
    }

    private TokenUsage estimate(ModelConfig model, Submission submission) {
        ModelFit.check(model, submission);
        long input = estimator.inputTokens(model, submission.body());
        if (input > model.maxInputTokens()) {
            throw new InvalidSubmissionException(submission.backend().bodyKey(), "the input is about " + input
                    + " tokens, over the limit of " + model.maxInputTokens() + " for model " + model.key());
        }
        return TokenUsage.of(input, submission.maxTokens());
    }

    public static final class Builder {
        private ModelCatalog catalog;
        private SubmissionParser parser;
        private TokenEstimator estimator = CharacterTokenEstimator.defaults();
        private PayloadStore payloads;
        private RequestStore requests;
        private ModelStatusBoard board;
        private Supplier<String> ids = () -> UUID.randomUUID().toString();

        private Builder() {
        }

        public Builder catalog(ModelCatalog value) { this.catalog = value; return this; }
        /** Validates bodies; it decides the callback policy and the largest body. */
        public Builder parser(SubmissionParser value) { this.parser = value; return this; }
        /** Default {@link CharacterTokenEstimator#defaults()}. */
        public Builder estimator(TokenEstimator value) { this.estimator = value; return this; }
        public Builder payloads(PayloadStore value) { this.payloads = value; return this; }
        public Builder requests(RequestStore value) { this.requests = value; return this; }
        public Builder board(ModelStatusBoard value) { this.board = value; return this; }
        /** New request ids for submissions that name none; default random UUIDs. */
        public Builder ids(Supplier<String> value) { this.ids = value; return this; }

        public SubmissionService build() {
            if (catalog == null || parser == null || estimator == null || payloads == null || requests == null
                    || board == null || ids == null) {
                throw new IllegalStateException("catalog, parser, estimator, payloads, requests, board and ids are"
                        + " required");
            }
            return new SubmissionService(this);
        }
    }
}
