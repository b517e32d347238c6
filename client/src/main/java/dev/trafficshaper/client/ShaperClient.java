package dev.trafficshaper.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.function.DoubleSupplier;

/**
 * A client for the shaper's asynchronous HTTP API ({@code POST /v1/requests},
 * {@code GET /v1/requests/{id}}, {@code GET /v1/models}).
 *
 * <p>Awaiting a result polls the status: each poll is one non-blocking {@link HttpClient#sendAsync}
 * and the next is scheduled on a {@link ScheduledExecutorService}, so thousands of awaited requests
 * share one scheduler thread. An await never polls sooner than the API's {@code Retry-After}, which
 * the API sets from the request's ETA while it is queued and from its running time while Bedrock
 * answers, so an await of a few minutes makes a handful of status reads; a {@code Retry-After} of
 * one second (or none) heard again and again in the same state backs off, doubling up to
 * {@code maxBackoff}, with jitter ({@link PollBackoff}). With an {@link OutcomeInbox} fed by a
 * webhook endpoint or an outcome-event consumer, an await completes from the push and polls only
 * as a slow fallback: once at the start, at the ETA, then from {@code fallbackPollInterval}
 * doubling up to {@code maxPollInterval}. A final failure (throttled,
 * expired, invalid, unknown) completes the future normally with a failed {@link RequestStatus};
 * the future completes exceptionally only when the status cannot be read: too many transport
 * errors or gateway {@code 429}/{@code 5xx} answers in a row, an answer outside the contract
 * (e.g. {@code 403}), a timeout the caller set, or {@link #close()}.
 *
 * <p>Thread-safe; build one per API and share it. {@link #close()} it when done: it stops every
 * await still running and the scheduler the client created.
 */
public final class ShaperClient implements AutoCloseable {

    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(2);
    /**
     * As long as the API's own longest {@code Retry-After} (the ETA of a queued request, at most five
     * minutes): a shorter cap would turn one wait into several polls for nothing.
     */
    public static final Duration DEFAULT_MAX_POLL_INTERVAL = Duration.ofMinutes(5);
    /** The longest the client's own backoff grows to while the API only says "not yet". */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(30);
    /** The first fallback poll interval past the ETA when outcomes are pushed. */
    public static final Duration DEFAULT_FALLBACK_POLL_INTERVAL = Duration.ofSeconds(30);
    public static final Duration DEFAULT_NOT_FOUND_GRACE = Duration.ofSeconds(10);
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_TRANSIENT_FAILURES = 5;

    private static final String JSON = "application/json";

    private final URI baseUri;
    private final URI requestsUri;
    private final URI modelsUri;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final RequestSigner signer;
    private final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    private final Clock clock;
    private final PollBackoff backoff;
    private final OutcomeInbox outcomes;
    private final DoubleSupplier random;
    private final Duration notFoundGrace;
    private final int maxTransientFailures;
    private final Set<Poll> polls = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private ShaperClient(Builder builder) {
        this.baseUri = builder.baseUri;
        this.requestsUri = URI.create(baseUri + "v1/requests");
        this.modelsUri = URI.create(baseUri + "v1/models");
        this.http = builder.httpClient != null ? builder.httpClient : HttpClient.newBuilder()
                .connectTimeout(builder.connectTimeout)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        this.requestTimeout = builder.requestTimeout;
        this.signer = builder.signer;
        this.ownsScheduler = builder.scheduler == null;
        this.scheduler = ownsScheduler ? defaultScheduler() : builder.scheduler;
        this.clock = builder.clock;
        this.outcomes = builder.outcomes;
        this.backoff = outcomes == null
                ? PollBackoff.polling(builder.pollInterval, builder.maxBackoff, builder.maxPollInterval)
                : PollBackoff.fallback(builder.pollInterval, builder.fallbackPollInterval, builder.maxPollInterval);
        this.random = builder.random;
        this.notFoundGrace = builder.notFoundGrace;
        this.maxTransientFailures = builder.maxTransientFailures;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A client with default settings and no signing: for the local server. */
    public static ShaperClient create(URI baseUri) {
        return builder().baseUri(baseUri).build();
    }

    /** The API root the client calls {@code v1/...} under, ending in {@code /}. */
    public URI baseUri() {
        return baseUri;
    }

    /**
     * Submits a request ({@code POST /v1/requests}).
     *
     * @throws SubmissionRejectedException on {@code 400} (invalid), {@code 409} (the id is taken by a
     *                                     different request) or {@code 429} (cannot be served in time,
     *                                     or throttled; see its {@code retryAfter()}); nothing new stored
     * @throws UnexpectedResponseException on any other status but {@code 200}/{@code 202}, e.g. {@code 403}
     * @throws ShaperException             when the call fails in transport
     */
    public Submitted submit(Submission submission) {
        Objects.requireNonNull(submission, "submission");
        return readSubmitted(send(post(requestsUri, submission.toJson())), submission);
    }

    /** As {@link #submit}, without blocking; the future fails with the exceptions {@code submit} throws. */
    public CompletableFuture<Submitted> submitAsync(Submission submission) {
        Objects.requireNonNull(submission, "submission");
        try {
            return sendAsync(post(requestsUri, submission.toJson()))
                    .thenApply(response -> readSubmitted(response, submission));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Reads a request's status once ({@code GET /v1/requests/{id}}): pending, succeeded, or a final
     * failure, which includes {@code 404} for an id that is unknown or another tenant's.
     *
     * @throws UnexpectedResponseException for a status outside the contract, such as {@code 403} or
     *                                     a gateway {@code 502}; {@link UnexpectedResponseException#isRetryable()}
     *                                     says whether asking again may help
     * @throws ShaperException             when the call fails in transport
     */
    public RequestStatus status(String requestId) {
        return readStatus(requestId, send(get(statusUri(requestId))));
    }

    /** As {@link #status}, without blocking. */
    public CompletableFuture<RequestStatus> statusAsync(String requestId) {
        try {
            return sendAsync(get(statusUri(requestId))).thenApply(response -> readStatus(requestId, response));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Lists the configured models ({@code GET /v1/models}).
     *
     * @throws UnexpectedResponseException unless the API answers {@code 200} with a JSON object
     * @throws ShaperException             when the call fails in transport
     */
    public Models models() {
        HttpResponse<String> response = send(get(modelsUri));
        JsonNode json = Json.parseLeniently(response.body());
        if (response.statusCode() != 200 || !json.isObject()) {
            throw new UnexpectedResponseException("GET " + modelsUri.getPath(), response.statusCode(),
                    response.body());
        }
        return Models.fromJson(json);
    }

    /**
     * Polls until the request is final. Cancelling or completing the returned future stops the
     * polling. A {@code 404} within {@code notFoundGrace} of the first poll is read as "not yet
     * visible" (the status store is eventually consistent) and polled again.
     */
    public CompletableFuture<RequestStatus> await(String requestId) {
        return await(requestId, null);
    }

    /**
     * As {@link #await(String)}, failing with a {@link TimeoutException} if the request is not final
     * within {@code timeout} (the request itself carries on at the shaper).
     *
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    public CompletableFuture<RequestStatus> await(String requestId, Duration timeout) {
        URI uri;
        try {
            ensureOpen();
            uri = statusUri(requestId);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        Poll poll = new Poll(requestId, uri);
        failAfter(poll.result, timeout, "no final status for " + requestId);
        poll.start();
        return poll.result;
    }

    /** Submits, then awaits the result; fails as {@link #submitAsync} does if the submission fails. */
    public CompletableFuture<RequestStatus> submitAndAwait(Submission submission) {
        return submitAndAwait(submission, null);
    }

    /** As {@link #submitAndAwait(Submission)}, with a {@code timeout} for the whole exchange. */
    public CompletableFuture<RequestStatus> submitAndAwait(Submission submission, Duration timeout) {
        Objects.requireNonNull(submission, "submission");
        CompletableFuture<RequestStatus> result = new CompletableFuture<>();
        failAfter(result, timeout, "no final status for " + submission.requestId().orElse("the submission"));
        submitAsync(submission).whenComplete((submitted, error) -> {
            if (error != null) {
                result.completeExceptionally(unwrap(error));
                return;
            }
            CompletableFuture<RequestStatus> polling = await(submitted.requestId());
            result.whenComplete((status, failure) -> polling.cancel(false));
            polling.whenComplete((status, failure) -> {
                if (failure != null) {
                    result.completeExceptionally(unwrap(failure));
                } else {
                    result.complete(status);
                }
            });
        });
        return result;
    }

    /**
     * Stops every await still running (their futures fail with a {@link ShaperException}) and shuts
     * down the scheduler if the client created it. Calls after this fail.
     */
    @Override
    public void close() {
        closed = true;
        for (Poll poll : List.copyOf(polls)) {
            poll.result.completeExceptionally(new ShaperException("the client was closed"));
        }
        if (ownsScheduler) {
            scheduler.shutdownNow();
        }
    }

    private Submitted readSubmitted(HttpResponse<String> response, Submission submission) {
        int code = response.statusCode();
        if (code == 200 || code == 202) {
            return Submitted.fromResponse(code, response.body(), submission.requestId().orElse(null));
        }
        if (code == 400 || code == 409 || code == 429) {
            JsonNode json = Json.parseLeniently(response.body());
            String error = Json.text(json, "error");
            if (error == null) {
                error = Json.text(json, "message");
            }
            throw new SubmissionRejectedException(code, error == null ? "refused" : error, Json.text(json, "field"),
                    code == 429 ? retryAfter(response) : null, response.body());
        }
        throw new UnexpectedResponseException("POST " + requestsUri.getPath(), code, response.body());
    }

    /**
     * Maps a status answer. 200, 202, 400 and 404 always come from the shaper (API Gateway's own
     * 400 for a bad path has the same shape); a 429, 503 or 504 is a final status only when its
     * body names a state, otherwise it is API Gateway throttling or timing out, and retryable.
     */
    private RequestStatus readStatus(String requestId, HttpResponse<String> response) {
        int code = response.statusCode();
        boolean fromShaper = switch (code) {
            case 200, 202, 400, 404 -> true;
            case 429, 503, 504 -> Json.text(Json.parseLeniently(response.body()), "status") != null;
            default -> false;
        };
        if (!fromShaper) {
            throw new UnexpectedResponseException("GET " + response.uri().getPath(), code, response.body());
        }
        return RequestStatus.fromResponse(requestId, code, retryAfter(response), response.body());
    }

    private Duration retryAfter(HttpResponse<String> response) {
        return RetryAfter.parse(response.headers().firstValue("Retry-After").orElse(null), clock.instant());
    }

    private URI statusUri(String requestId) {
        if (requestId == null || requestId.isBlank()) {
            throw new IllegalArgumentException("requestId is required");
        }
        String segment = URLEncoder.encode(requestId, StandardCharsets.UTF_8).replace("+", "%20");
        return URI.create(requestsUri + "/" + segment);
    }

    private HttpRequest get(URI uri) {
        return request("GET", uri, null);
    }

    private HttpRequest post(URI uri, String json) {
        return request("POST", uri, json.getBytes(StandardCharsets.UTF_8));
    }

    private HttpRequest request(String method, URI uri, byte[] body) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Accept", JSON);
        if (body != null) {
            headers.put("Content-Type", JSON);
        }
        Map<String, String> authentication = signer.sign(new SignableRequest(method, uri, headers, body));
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(requestTimeout)
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofByteArray(body));
        headers.forEach(request::setHeader);
        authentication.forEach(request::setHeader);
        return request.build();
    }

    private HttpResponse<String> send(HttpRequest request) {
        ensureOpen();
        try {
            return http.send(request, BodyHandlers.ofString());
        } catch (IOException e) {
            throw new ShaperException(describe(request) + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ShaperException(describe(request) + " was interrupted", e);
        }
    }

    private CompletableFuture<HttpResponse<String>> sendAsync(HttpRequest request) {
        ensureOpen();
        return http.sendAsync(request, BodyHandlers.ofString()).handle((response, error) -> {
            if (error == null) {
                return response;
            }
            Throwable cause = unwrap(error);
            throw cause instanceof RuntimeException runtime ? runtime
                    : new ShaperException(describe(request) + " failed: " + cause, cause);
        });
    }

    private void failAfter(CompletableFuture<RequestStatus> future, Duration timeout, String message) {
        if (timeout == null) {
            return;
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        try {
            Runnable expire = () -> future.completeExceptionally(new TimeoutException(message + " within " + timeout));
            ScheduledFuture<?> timer = scheduler.schedule(expire, timeout.toMillis(), TimeUnit.MILLISECONDS);
            future.whenComplete((status, error) -> timer.cancel(false));
        } catch (RejectedExecutionException e) {
            future.completeExceptionally(new ShaperException("the client was closed", e));
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new ShaperException("the client was closed");
        }
    }

    private static String describe(HttpRequest request) {
        return request.method() + " " + request.uri().getPath();
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static ScheduledExecutorService defaultScheduler() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "traffic-shaper-client-poller");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /**
     * One awaited request. At most one poll is in flight at a time: the next is scheduled only from
     * the previous one's completion (a pushed summary without the response asks once more at once).
     */
    private final class Poll {
        final CompletableFuture<RequestStatus> result = new CompletableFuture<>();
        private final String requestId;
        private final URI uri;
        private final Instant notFoundUntil;
        private volatile ScheduledFuture<?> next;
        private volatile int failures;
        private volatile PollBackoff.Streak streak = PollBackoff.Streak.NONE;

        Poll(String requestId, URI uri) {
            this.requestId = requestId;
            this.uri = uri;
            this.notFoundUntil = clock.instant().plus(notFoundGrace);
        }

        void start() {
            polls.add(this);
            result.whenComplete((status, error) -> {
                polls.remove(this);
                ScheduledFuture<?> scheduled = next;
                if (scheduled != null) {
                    scheduled.cancel(false);
                }
            });
            if (outcomes != null) {
                CompletableFuture<RequestStatus> pushed = outcomes.expect(requestId);
                result.whenComplete((status, error) -> outcomes.forget(requestId, pushed));
                pushed.thenAccept(this::onPushed);
            }
            poll();
        }

        /**
         * A pushed outcome ends the await; an outcome event's summary of a success has no response,
         * so the status is read once more for it, at once.
         */
        private void onPushed(RequestStatus status) {
            if (result.isDone()) {
                return;
            }
            if (status.isSucceeded() && status.response().isEmpty()) {
                ScheduledFuture<?> scheduled = next;
                if (scheduled != null) {
                    scheduled.cancel(false);
                }
                poll();
            } else {
                result.complete(status);
            }
        }

        private void poll() {
            if (result.isDone()) {
                return;
            }
            try {
                http.sendAsync(get(uri), BodyHandlers.ofString()).whenComplete(this::onAnswer);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }

        private void onAnswer(HttpResponse<String> response, Throwable error) {
            if (result.isDone()) {
                return;
            }
            try {
                if (error != null) {
                    Throwable cause = unwrap(error);
                    if (cause instanceof IOException) {
                        retry(cause, null);
                    } else {
                        result.completeExceptionally(cause);
                    }
                    return;
                }
                RequestStatus status;
                try {
                    status = readStatus(requestId, response);
                } catch (UnexpectedResponseException e) {
                    if (e.isRetryable()) {
                        retry(e, retryAfter(response));
                    } else {
                        result.completeExceptionally(e);
                    }
                    return;
                }
                failures = 0;
                if (status.isPending()) {
                    PollBackoff.Next after = backoff.afterPending(streak, status.status(),
                            status.retryAfter().orElse(null), random.getAsDouble());
                    streak = after.streak();
                    schedule(after.delay());
                } else if (status.httpStatus() == 404 && clock.instant().isBefore(notFoundUntil)) {
                    schedule(backoff.afterNotFound());
                } else {
                    result.complete(status);
                }
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }

        private void retry(Throwable cause, Duration retryAfter) {
            failures++;
            if (failures > maxTransientFailures) {
                result.completeExceptionally(new ShaperException("the status of " + requestId + " could not be read "
                        + failures + " times in a row; last: " + cause, cause));
                return;
            }
            schedule(backoff.afterFailure(failures, retryAfter));
        }

        private void schedule(Duration delay) {
            try {
                ScheduledFuture<?> scheduled = scheduler.schedule(this::poll, delay.toMillis(),
                        TimeUnit.MILLISECONDS);
                next = scheduled;
                if (result.isDone()) {
                    scheduled.cancel(false); // completed while scheduling: start() may have missed it
                }
            } catch (RejectedExecutionException e) {
                result.completeExceptionally(new ShaperException("the client was closed", e));
            }
        }
    }

    public static final class Builder {
        private URI baseUri;
        private HttpClient httpClient;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private RequestSigner signer = RequestSigner.none();
        private ScheduledExecutorService scheduler;
        private Clock clock = Clock.systemUTC();
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private Duration maxPollInterval = DEFAULT_MAX_POLL_INTERVAL;
        private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
        private Duration fallbackPollInterval = DEFAULT_FALLBACK_POLL_INTERVAL;
        private OutcomeInbox outcomes;
        private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();
        private Duration notFoundGrace = DEFAULT_NOT_FOUND_GRACE;
        private int maxTransientFailures = DEFAULT_MAX_TRANSIENT_FAILURES;

        private Builder() {
        }

        /**
         * The API root, under which {@code v1/requests} and {@code v1/models} live: the stage URL on
         * AWS (e.g. {@code https://abc.execute-api.eu-west-1.amazonaws.com/prod}), or
         * {@code http://localhost:PORT} for the local server. Required.
         */
        public Builder baseUri(URI baseUri) {
            this.baseUri = baseUri;
            return this;
        }

        public Builder baseUri(String baseUri) {
            return baseUri(URI.create(baseUri));
        }

        /** The HTTP client to use; when set, {@link #connectTimeout} is the client's own business. */
        public Builder httpClient(HttpClient httpClient) {
            this.httpClient = httpClient;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /** How long one HTTP exchange may take (default 30 s). */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
            return this;
        }

        /** Authenticates each request; default {@link RequestSigner#none()}. */
        public Builder signer(RequestSigner signer) {
            this.signer = signer;
            return this;
        }

        /**
         * Runs the delayed polls and timeouts. Default: one daemon thread the client owns and shuts
         * down on {@link ShaperClient#close()}; a scheduler given here is left running.
         */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = scheduler;
            return this;
        }

        /** Reads HTTP-date {@code Retry-After} values and times the not-found grace. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * The wait between polls when the API sends no {@code Retry-After} (default 2 s); it doubles
         * while the answers keep coming without one in the same state, up to {@link #maxBackoff}.
         */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        /** The longest wait between polls, whatever {@code Retry-After} says (default 5 minutes). */
        public Builder maxPollInterval(Duration maxPollInterval) {
            this.maxPollInterval = maxPollInterval;
            return this;
        }

        /**
         * The longest the client's own backoff grows to when the API keeps answering
         * {@code Retry-After: 1} (or nothing) in the same state (default 30 s); a longer
         * {@code Retry-After} is still followed, up to {@link #maxPollInterval}.
         */
        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
            return this;
        }

        /**
         * Completes awaits from outcomes pushed into {@code outcomes} (a webhook endpoint, an outcome
         * event consumer); polling becomes the fallback for a lost push. Default: none, poll only.
         */
        public Builder outcomes(OutcomeInbox outcomes) {
            this.outcomes = outcomes;
            return this;
        }

        /**
         * With {@link #outcomes}, the least wait between fallback polls, doubling after each
         * pending answer up to {@link #maxPollInterval} (default 30 s); the API's
         * {@code Retry-After} (the ETA) is waited in full when longer.
         */
        public Builder fallbackPollInterval(Duration fallbackPollInterval) {
            this.fallbackPollInterval = fallbackPollInterval;
            return this;
        }

        /** Draws the jitter (uniform in [0, 1)); tests pin it. */
        Builder random(DoubleSupplier random) {
            this.random = random;
            return this;
        }

        /** How long after an await starts a {@code 404} means "not yet visible" (default 10 s; zero: never). */
        public Builder notFoundGrace(Duration notFoundGrace) {
            this.notFoundGrace = notFoundGrace;
            return this;
        }

        /** Unreadable polls in a row (transport errors, gateway 429/5xx) an await survives (default 5). */
        public Builder maxTransientFailures(int maxTransientFailures) {
            this.maxTransientFailures = maxTransientFailures;
            return this;
        }

        public ShaperClient build() {
            Objects.requireNonNull(baseUri, "baseUri is required");
            this.baseUri = normalized(baseUri);
            Objects.requireNonNull(signer, "signer");
            Objects.requireNonNull(clock, "clock");
            requirePositive("connectTimeout", connectTimeout);
            requirePositive("requestTimeout", requestTimeout);
            requirePositive("pollInterval", pollInterval);
            requirePositive("maxPollInterval", maxPollInterval);
            requirePositive("maxBackoff", maxBackoff);
            requirePositive("fallbackPollInterval", fallbackPollInterval);
            Objects.requireNonNull(random, "random");
            Objects.requireNonNull(notFoundGrace, "notFoundGrace");
            if (notFoundGrace.isNegative()) {
                throw new IllegalArgumentException("notFoundGrace must not be negative, was " + notFoundGrace);
            }
            if (maxTransientFailures < 0) {
                throw new IllegalArgumentException("maxTransientFailures must not be negative, was "
                        + maxTransientFailures);
            }
            return new ShaperClient(this);
        }

        private static URI normalized(URI uri) {
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            boolean http = scheme.equals("http") || scheme.equals("https");
            if (!uri.isAbsolute() || !http || uri.getRawAuthority() == null) {
                throw new IllegalArgumentException("baseUri must be an absolute http(s) URL, was " + uri);
            }
            if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
                throw new IllegalArgumentException("baseUri must have no query or fragment, was " + uri);
            }
            String path = uri.getRawPath() == null ? "" : uri.getRawPath();
            return URI.create(scheme + "://" + uri.getRawAuthority() + (path.endsWith("/") ? path : path + "/"));
        }

        private static void requirePositive(String name, Duration value) {
            Objects.requireNonNull(value, name);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + value);
            }
        }
    }
}
