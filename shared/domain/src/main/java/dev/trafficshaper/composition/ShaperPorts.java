package dev.trafficshaper.composition;

import dev.trafficshaper.bedrock.ModelInvoker;
import dev.trafficshaper.delivery.HttpWebhookTransport;
import dev.trafficshaper.delivery.OutcomeEvents;
import dev.trafficshaper.delivery.WebhookQueue;
import dev.trafficshaper.delivery.WebhookTransport;
import dev.trafficshaper.lease.DrainerLeases;
import dev.trafficshaper.lifecycle.DrainClock;
import dev.trafficshaper.lifecycle.DrainerWake;
import dev.trafficshaper.lifecycle.InvocationDispatch;
import dev.trafficshaper.lifecycle.ModelStatusBoard;
import dev.trafficshaper.lifecycle.PacerHandoff;
import dev.trafficshaper.lifecycle.ShaperMetrics;
import dev.trafficshaper.lifecycle.StoredPacerHandoff;
import dev.trafficshaper.lifecycle.WorkflowCallback;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.payload.PayloadStore;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.submission.CharacterTokenEstimator;
import dev.trafficshaper.submission.TokenEstimator;
import dev.trafficshaper.usage.UsageLedger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Everything the shaper's services need from outside the domain, as one value: the stores, the
 * model catalog, Bedrock, the asynchronous hand-offs (dispatch to the Bedrock Processor, waking a
 * drainer, resuming a workflow), delivery, metrics, time and the settings. A composition root
 * fills it with its adapters — AWS clients in the Lambda functions, in-memory stores and threads in
 * the local runtime — and {@link ShaperServices} builds every service from it.
 *
 * <p>Each port is given as a factory and made on first use, once ({@link Lazy}): a Lambda function
 * then creates only the clients its own services need, and a port whose configuration is missing
 * fails when a service that needs it is built, naming what is missing, not at every cold start.
 * Time, the id source and the settings cost nothing to make and are plain values.
 */
public final class ShaperPorts {

    /**
     * How long one whole webhook attempt may take (connect, TLS, send, status line): short, since a
     * failed attempt is tried again later from the queue, and a receiver that hangs must not hold
     * the sender. Receivers answer first and work afterwards.
     */
    public static final Duration WEBHOOK_TIMEOUT = Duration.ofSeconds(5);
    /**
     * How long a webhook attempt may take to connect, within {@link #WEBHOOK_TIMEOUT}: a receiver
     * that is down or drops packets holds its sender for this long.
     */
    public static final Duration WEBHOOK_CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final Lazy<ModelCatalog> catalog;
    private final Lazy<RequestQueue> queue;
    private final Lazy<RequestStore> requests;
    private final Lazy<DrainerLeases> leases;
    private final Lazy<ModelStatusBoard> board;
    private final Lazy<UsageLedger> usage;
    private final Lazy<PayloadStore> payloads;
    private final Lazy<ModelInvoker> invoker;
    private final Lazy<InvocationDispatch> dispatch;
    private final Lazy<DrainerWake> wake;
    private final Lazy<WorkflowCallback> callback;
    private final Lazy<OutcomeEvents> events;
    private final Lazy<WebhookTransport> webhooks;
    private final Lazy<WebhookQueue> webhookQueue;
    private final Lazy<byte[]> webhookSecret;
    private final Lazy<ShaperMetrics> metrics;
    private final Lazy<PacerHandoff> handoff;
    private final DrainClock clock;
    private final Supplier<String> ids;
    private final Lazy<TokenEstimator> estimator;
    private final ShaperSettings settings;

    private ShaperPorts(Builder b) {
        this.catalog = Lazy.of(b.catalog);
        this.queue = Lazy.of(b.queue);
        this.requests = Lazy.of(b.requests);
        this.leases = Lazy.of(b.leases);
        this.board = Lazy.of(b.board);
        this.usage = Lazy.of(b.usage);
        this.payloads = Lazy.of(b.payloads);
        this.invoker = Lazy.of(b.invoker);
        this.dispatch = Lazy.of(b.dispatch);
        this.wake = Lazy.of(b.wake);
        this.callback = Lazy.of(b.callback);
        this.events = Lazy.of(b.events);
        ShaperSettings settings = b.settings;
        this.webhooks = Lazy.of(b.webhooks != null ? b.webhooks
                : () -> new HttpWebhookTransport(WEBHOOK_CONNECT_TIMEOUT, WEBHOOK_TIMEOUT, settings.callbacks()));
        this.webhookQueue = Lazy.of(b.webhookQueue);
        this.webhookSecret = Lazy.of(b.webhookSecret);
        this.metrics = Lazy.of(b.metrics);
        this.handoff = Lazy.of(b.handoff);
        this.clock = b.clock;
        this.ids = b.ids;
        this.estimator = Lazy.of(b.estimator);
        this.settings = b.settings;
    }

    public static Builder builder() {
        return new Builder();
    }

    public ModelCatalog catalog() {
        return catalog.get();
    }

    public RequestQueue queue() {
        return queue.get();
    }

    public RequestStore requests() {
        return requests.get();
    }

    public DrainerLeases leases() {
        return leases.get();
    }

    public ModelStatusBoard board() {
        return board.get();
    }

    public UsageLedger usage() {
        return usage.get();
    }

    public PayloadStore payloads() {
        return payloads.get();
    }

    /** Calls Bedrock, with retries off. */
    public ModelInvoker invoker() {
        return invoker.get();
    }

    /** Hands an admitted request to the Bedrock Processor. */
    public InvocationDispatch dispatch() {
        return dispatch.get();
    }

    /** Starts a drainer for a model (which finds the lease held if one already runs). */
    public DrainerWake wake() {
        return wake.get();
    }

    /** Resumes a request's workflow once its terminal status is written. */
    public WorkflowCallback callback() {
        return callback.get();
    }

    public OutcomeEvents events() {
        return events.get();
    }

    public WebhookTransport webhooks() {
        return webhooks.get();
    }

    /** Where finished requests' webhooks wait for their attempts. */
    public WebhookQueue webhookQueue() {
        return webhookQueue.get();
    }

    /** The webhook signing key (a copy). */
    public byte[] webhookSecret() {
        return webhookSecret.get().clone();
    }

    public ShaperMetrics metrics() {
        return metrics.get();
    }

    /** How a drainer's pacer passes to the next lease holder. */
    public PacerHandoff handoff() {
        return handoff.get();
    }

    /** The services' time: what now is, and waiting for a later time. */
    public DrainClock clock() {
        return clock;
    }

    /** Request ids for submissions that name none. */
    public Supplier<String> ids() {
        return ids;
    }

    /** Estimates a submission's input tokens before it is queued. */
    public TokenEstimator estimator() {
        return estimator.get();
    }

    public ShaperSettings settings() {
        return settings;
    }

    /**
     * The ports, each as a factory called at most once. The stores, the catalog, Bedrock, the
     * hand-offs, the webhook queue and the webhook secret have no default; the rest default to what a deployment uses
     * (outcome events and metrics to nothing).
     */
    public static final class Builder {
        private Supplier<? extends ModelCatalog> catalog;
        private Supplier<? extends RequestQueue> queue;
        private Supplier<? extends RequestStore> requests;
        private Supplier<? extends DrainerLeases> leases;
        private Supplier<? extends ModelStatusBoard> board;
        private Supplier<? extends UsageLedger> usage;
        private Supplier<? extends PayloadStore> payloads;
        private Supplier<? extends ModelInvoker> invoker;
        private Supplier<? extends InvocationDispatch> dispatch;
        private Supplier<? extends DrainerWake> wake;
        private Supplier<? extends WorkflowCallback> callback;
        private Supplier<? extends OutcomeEvents> events = () -> OutcomeEvents.NONE;
        private Supplier<? extends WebhookTransport> webhooks;
        private Supplier<? extends WebhookQueue> webhookQueue;
        private Supplier<byte[]> webhookSecret;
        private Supplier<? extends ShaperMetrics> metrics = () -> ShaperMetrics.NONE;
        private Supplier<? extends PacerHandoff> handoff = StoredPacerHandoff::new;
        private DrainClock clock = DrainClock.system();
        private Supplier<String> ids = () -> UUID.randomUUID().toString();
        private Supplier<? extends TokenEstimator> estimator = CharacterTokenEstimator::defaults;
        private ShaperSettings settings = ShaperSettings.defaults();

        private Builder() {
        }

        public Builder catalog(Supplier<? extends ModelCatalog> value) { this.catalog = value; return this; }
        public Builder queue(Supplier<? extends RequestQueue> value) { this.queue = value; return this; }
        public Builder requests(Supplier<? extends RequestStore> value) { this.requests = value; return this; }
        public Builder leases(Supplier<? extends DrainerLeases> value) { this.leases = value; return this; }
        public Builder board(Supplier<? extends ModelStatusBoard> value) { this.board = value; return this; }
        public Builder usage(Supplier<? extends UsageLedger> value) { this.usage = value; return this; }
        public Builder payloads(Supplier<? extends PayloadStore> value) { this.payloads = value; return this; }
        public Builder invoker(Supplier<? extends ModelInvoker> value) { this.invoker = value; return this; }
        public Builder dispatch(Supplier<? extends InvocationDispatch> value) { this.dispatch = value; return this; }
        public Builder wake(Supplier<? extends DrainerWake> value) { this.wake = value; return this; }
        public Builder callback(Supplier<? extends WorkflowCallback> value) { this.callback = value; return this; }
        /** Default: none published. */
        public Builder events(Supplier<? extends OutcomeEvents> value) { this.events = value; return this; }
        /** Default: {@link HttpWebhookTransport} with {@link #WEBHOOK_CONNECT_TIMEOUT} and {@link #WEBHOOK_TIMEOUT}, on the settings' callback rules. */
        public Builder webhooks(Supplier<? extends WebhookTransport> value) { this.webhooks = value; return this; }
        public Builder webhookQueue(Supplier<? extends WebhookQueue> value) { this.webhookQueue = value; return this; }
        public Builder webhookSecret(Supplier<byte[]> value) { this.webhookSecret = value; return this; }
        /** Default: none recorded. */
        public Builder metrics(Supplier<? extends ShaperMetrics> value) { this.metrics = value; return this; }
        /** Default {@link StoredPacerHandoff}: the pacer's state travels with the published status. */
        public Builder handoff(Supplier<? extends PacerHandoff> value) { this.handoff = value; return this; }
        /** Default the wall clock. */
        public Builder clock(DrainClock value) { this.clock = value; return this; }
        /** Default random UUIDs. */
        public Builder ids(Supplier<String> value) { this.ids = value; return this; }
        /** Default {@link CharacterTokenEstimator#defaults()}. */
        public Builder estimator(Supplier<? extends TokenEstimator> value) { this.estimator = value; return this; }
        /** Default {@link ShaperSettings#defaults()}. */
        public Builder settings(ShaperSettings value) { this.settings = value; return this; }

        public ShaperPorts build() {
            List<String> missing = new ArrayList<>();
            require(missing, "catalog", catalog);
            require(missing, "queue", queue);
            require(missing, "requests", requests);
            require(missing, "leases", leases);
            require(missing, "board", board);
            require(missing, "usage", usage);
            require(missing, "payloads", payloads);
            require(missing, "invoker", invoker);
            require(missing, "dispatch", dispatch);
            require(missing, "wake", wake);
            require(missing, "callback", callback);
            require(missing, "events", events);
            require(missing, "webhookQueue", webhookQueue);
            require(missing, "webhookSecret", webhookSecret);
            require(missing, "metrics", metrics);
            require(missing, "handoff", handoff);
            require(missing, "clock", clock);
            require(missing, "ids", ids);
            require(missing, "estimator", estimator);
            require(missing, "settings", settings);
            if (!missing.isEmpty()) {
                throw new IllegalStateException("ports missing: " + String.join(", ", missing));
            }
            return new ShaperPorts(this);
        }

        private static void require(List<String> missing, String name, Object value) {
            if (value == null) {
                missing.add(name);
            }
        }
    }
}
