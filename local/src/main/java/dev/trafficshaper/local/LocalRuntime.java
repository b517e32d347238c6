package dev.trafficshaper.local;

import dev.trafficshaper.aws.bedrock.BedrockInvokers;
import dev.trafficshaper.bedrock.ModelInvoker;
import dev.trafficshaper.composition.ShaperPorts;
import dev.trafficshaper.composition.ShaperServices;
import dev.trafficshaper.composition.ShaperSettings;
import dev.trafficshaper.delivery.DeliverySchedule;
import dev.trafficshaper.delivery.Notifier;
import dev.trafficshaper.delivery.OutcomeEvents;
import dev.trafficshaper.delivery.ScheduledWebhookQueue;
import dev.trafficshaper.delivery.StatusService;
import dev.trafficshaper.lifecycle.AdmissionService;
import dev.trafficshaper.lifecycle.DispatchMode;
import dev.trafficshaper.lifecycle.DrainSettings;
import dev.trafficshaper.lifecycle.Finalizer;
import dev.trafficshaper.lifecycle.InvocationService;
import dev.trafficshaper.lifecycle.SafetyNet;
import dev.trafficshaper.lifecycle.ShaperMetrics;
import dev.trafficshaper.lifecycle.SubmissionService;
import dev.trafficshaper.lifecycle.Sweeper;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.payload.PayloadPolicy;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import dev.trafficshaper.threads.DaemonThreads;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;

/**
 * The whole shaper in one process: the services the Lambda functions run, built by the same
 * {@link ShaperServices}, with the local adapters in {@link ShaperPorts} — the stores of
 * {@link LocalStores}, and threads where AWS has asynchronous invokes and Step Functions. The
 * workflow's "resume" becomes the Deliver step (event published, webhook queued), as the Deliver
 * state does on AWS; webhooks wait in a {@link ScheduledWebhookQueue} on the runtime's clock and
 * are tried on the same schedule as the SQS delivery queue on AWS, each attempt on a small pool
 * with a short timeout.
 *
 * <p>One drainer thread per model runs while there is work and makes the Bedrock calls itself, as
 * the Queue Processor does on AWS ({@code DispatchMode.INLINE}: up to {@code invokerThreads} at
 * once, with no time limit to fit them in); a call that finds every thread busy, and the sweeper's
 * re-dispatch, go to the invoker pool as the asynchronous Bedrock Processor. Every second the {@link SafetyNet}
 * sweeps, as the 1-minute schedule does on AWS: it wakes a drainer for any model with queued work
 * and no lease, and expires the overdue items of such models; in the same pass, every
 * {@link Sweeper#PERIOD}, the {@link UndeliveredSweep} hands off the delivery of requests that ended
 * without one. Each model keeps one pacer for the
 * life of the process ({@link KeptPacers}), so a drainer that starts again soon after the last one
 * went idle still knows what was admitted in the last minute.
 *
 * <p>Time comes from one {@link LocalClock}; a scaled clock (shared with the Bedrock simulator)
 * plays a run of several quota minutes in seconds, while the drainer's lease and bookkeeping keep
 * their wall lengths ({@link WallClockDrainSettings}).
 */
public final class LocalRuntime implements AutoCloseable {

    private final ModelCatalog catalog;
    private final RequestQueue queue;
    private final ShaperServices services;
    private final ExecutorService drainers = Executors.newCachedThreadPool(DaemonThreads.factory("shaper-drainer"));
    private final ExecutorService invokers;
    private final ExecutorService deliveries = Executors.newCachedThreadPool(DaemonThreads.factory("shaper-delivery"));
    /** Two webhook attempts in flight per receiver: a slow receiver delays only its own. */
    private final ReceiverLanes receivers = new ReceiverLanes(deliveries, 2);
    private final ScheduledExecutorService webhookPump = Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.factory("shaper-webhooks"));
    private final ScheduledWebhookQueue webhooks;
    private final ScheduledExecutorService safetyNet = Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.factory("shaper-safety-net"));
    private final Map<String, AtomicBoolean> draining = new ConcurrentHashMap<>();
    private final UndeliveredSweep undelivered;
    private final LocalClock clock;
    private final int maxBodyBytes;
    private final OutcomeListener listener;

    /** Told about every outcome once its delivery is handed off (event published, webhook queued); for the demo and tests. */
    public interface OutcomeListener {
        OutcomeListener NONE = (record, delivery) -> { };

        void delivered(RequestRecord record, Notifier.Delivery delivery);
    }

    private LocalRuntime(Builder b) {
        this.catalog = b.catalog;
        this.clock = b.clock;
        this.maxBodyBytes = b.maxBodyBytes;
        this.listener = b.listener;
        this.invokers = Executors.newFixedThreadPool(b.invokerThreads, DaemonThreads.factory("shaper-invoker"));
        LocalStores stores = b.stores.apply(catalog);
        this.queue = stores.queue();
        // Made now, not on the first request: a Bedrock client that cannot be built stops the start.
        ModelInvoker invoker = b.invoker != null ? b.invoker : bedrockInvoker(b.bedrockEndpoint);
        byte[] webhookSecret = b.webhookSecret.clone();
        OutcomeEvents events = b.events;
        ShaperMetrics metrics = b.metrics;
        this.webhooks = new ScheduledWebhookQueue(clock);
        this.services = ShaperServices.create(ShaperPorts.builder()
                .catalog(() -> catalog)
                .queue(stores::queue)
                .requests(stores::requests)
                .leases(stores::leases)
                .board(stores::board)
                .usage(stores::usage)
                .payloads(stores::payloads)
                .invoker(() -> invoker)
                .dispatch(() -> this::dispatch)
                .wake(() -> this::wake)
                .callback(() -> this::deliver)
                .events(() -> events)
                .webhookQueue(() -> webhooks)
                .webhookSecret(() -> webhookSecret)
                .metrics(() -> metrics)
                .handoff(KeptPacers::new)
                .clock(clock)
                .settings(ShaperSettings.builder()
                        .callbacks(b.strictCallbacks ? CallbackUrlPolicy.strict() : CallbackUrlPolicy.local())
                        .maxBodyBytes(maxBodyBytes)
                        .delivery(b.webhookSchedule)
                        .drain(WallClockDrainSettings.of(DrainSettings.defaults().withDispatch(DispatchMode.INLINE,
                                b.invokerThreads), clock.scale()))
                        .build())
                .build());
        queueLeftoverWebhooks(stores);
        this.undelivered = new UndeliveredSweep(stores.endedWithoutDelivery(), stores.requests(), this::handOff,
                Sweeper.PERIOD.toMillis(), Sweeper.GRACE.toMillis());
        safetyNet.scheduleWithFixedDelay(this::sweep, 1, 1, TimeUnit.SECONDS);
        webhookPump.scheduleWithFixedDelay(this::sendDueWebhooks, 50, 50, TimeUnit.MILLISECONDS);
    }

    public static Builder builder() {
        return new Builder();
    }

    public ModelCatalog catalog() {
        return catalog;
    }

    /** Every service of this runtime. */
    public ShaperServices services() {
        return services;
    }

    public SubmissionService submissions() {
        return services.submissions();
    }

    public AdmissionService admissions() {
        return services.admissions();
    }

    public StatusService status() {
        return services.status();
    }

    public Finalizer finalizer() {
        return services.finalizer();
    }

    public long nowMillis() {
        return clock.nowMillis();
    }

    public LocalClock clock() {
        return clock;
    }

    /** Largest {@code POST /v1/requests} body accepted, in bytes. */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** Requests of the model waiting in its queue now (not the drainer's last published count). */
    public long queueDepth(String modelKey) {
        return queue.depth(modelKey, clock.nowMillis());
    }

    /** Starts a drainer thread for the model unless one is already running in this process. */
    public void wake(String modelKey) {
        AtomicBoolean running = draining.computeIfAbsent(modelKey, key -> new AtomicBoolean());
        if (!running.compareAndSet(false, true)) {
            return;
        }
        drainers.execute(() -> {
            try {
                services.drains().drain(modelKey, "local-" + modelKey, Long.MAX_VALUE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                System.err.println("drainer for " + modelKey + " stopped: " + e);
            } finally {
                running.set(false);
            }
        });
    }

    /**
     * Queues again the webhooks a stopped process left waiting: its delivery queue was in memory,
     * but the table says which ended requests have a webhook neither delivered nor dead-lettered.
     * One whose delivery was never handed off gets it now (event and webhook); one already queued gets its
     * next attempt, its count going on from the stored one. A receiver may see a webhook twice
     * (it deduplicates on {@code X-Shaper-Delivery-Id}); none is lost.
     */
    private void queueLeftoverWebhooks(LocalStores stores) {
        long now = clock.nowMillis();
        for (String requestId : stores.withCallbacks().get()) {
            stores.requests().find(requestId, now).filter(RequestRecord::isTerminal).ifPresent(record -> {
                if (record.delivery() == null) {
                    // Ended, and the process died before it handed the delivery off: hand it off now.
                    handOff(record);
                } else if (!record.delivery().delivered() && !record.delivery().deadLettered()) {
                    webhooks.enqueue(requestId, record.callbackUrl());
                }
            });
        }
    }

    /** Hands an ended request's delivery off (event published, webhook queued) and tells the listener. */
    private void handOff(RequestRecord record) {
        services.notifier().deliver(record);
        deliver(record);
    }

    /** The Bedrock Processor's asynchronous invoke: one call on the invoker pool (the drainer's own threads busy, or a sweep). */
    private void dispatch(String modelKey, String requestId) {
        invokers.execute(() -> services.invocations().process(requestId));
    }

    /**
     * The workflow's resume: the listener is told. The delivery (event published, webhook queued) is
     * already handed off, by whoever wrote the terminal state, before it resumed.
     */
    private void deliver(RequestRecord record) {
        deliveries.execute(() -> {
            try {
                listener.delivered(record, new Notifier.Delivery(record.requestId(), record.callbackUrl() != null));
            } catch (RuntimeException e) {
                System.err.println("outcome listener for " + record.requestId() + " failed: " + e);
            }
        });
    }

    /**
     * The webhook queue's due attempts, each in the lane of its receiver ({@link ReceiverLanes}),
     * which the queue entry carries: routing reads no request.
     */
    private void sendDueWebhooks() {
        try {
            webhooks.runDueRouted(services.webhookSender(),
                    callbackUrl -> attempt -> receivers.submit(ReceiverLanes.receiverOf(callbackUrl), attempt));
        } catch (RuntimeException e) {
            System.err.println("webhook attempts failed: " + e);
        }
    }

    /** Webhooks waiting for an attempt, and those whose every attempt failed. */
    public ScheduledWebhookQueue webhooks() {
        return webhooks;
    }

    /**
     * One safety-net sweep, then the pass over ended requests never handed off; a failure (a store
     * unreachable, say) is reported and the next sweep runs.
     */
    private void sweep() {
        try {
            services.safetyNet().sweep(clock.nowMillis());
        } catch (RuntimeException e) {
            System.err.println("safety net sweep failed: " + e);
        }
        try {
            undelivered.sweep(clock.nowMillis());
        } catch (RuntimeException e) {
            System.err.println("sweep of undelivered outcomes failed: " + e);
        }
    }

    private static ModelInvoker bedrockInvoker(URI endpoint) {
        var builder = BedrockRuntimeClient.builder().httpClientBuilder(UrlConnectionHttpClient.builder()
                .socketTimeout(InvocationService.MAX_CALL).connectionTimeout(Duration.ofSeconds(5)));
        if (endpoint != null) {
            builder.endpointOverride(endpoint).region(Region.US_EAST_1)
                    .credentialsProvider(StaticCredentialsProvider.create(
                            AwsBasicCredentials.create("local", "local")));
        }
        return BedrockInvokers.forRuntimeClient(BedrockInvokers.withoutRetries(builder, InvocationService.MAX_CALL)
                .build());
    }

    @Override
    public void close() {
        safetyNet.shutdownNow();
        webhookPump.shutdownNow();
        drainers.shutdownNow();
        invokers.shutdownNow();
        deliveries.shutdown();
        try {
            deliveries.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static final class Builder {
        private ModelCatalog catalog = ModelCatalog.defaults();
        private Function<ModelCatalog, LocalStores> stores = LocalStores.inMemory();
        private URI bedrockEndpoint;
        private ModelInvoker invoker;
        private byte[] webhookSecret = "local-webhook-secret".getBytes(StandardCharsets.UTF_8);
        private OutcomeEvents events = OutcomeEvents.NONE;
        private ShaperMetrics metrics = ShaperMetrics.NONE;
        private OutcomeListener listener = OutcomeListener.NONE;
        private boolean strictCallbacks;
        private int invokerThreads = 64;
        private LocalClock clock = LocalClock.system();
        private int maxBodyBytes = PayloadPolicy.DEFAULT_MAX_BYTES;
        private DeliverySchedule webhookSchedule = DeliverySchedule.defaults();

        private Builder() {
        }

        public Builder catalog(ModelCatalog value) { this.catalog = value; return this; }
        /** Where state is kept; default {@link LocalStores#inMemory()}. */
        public Builder stores(Function<ModelCatalog, LocalStores> value) { this.stores = value; return this; }
        /** Bedrock Runtime endpoint (the simulator's); null for real Bedrock with the default credentials. */
        public Builder bedrockEndpoint(URI value) { this.bedrockEndpoint = value; return this; }
        public Builder invoker(ModelInvoker value) { this.invoker = value; return this; }
        public Builder webhookSecret(byte[] value) { this.webhookSecret = value.clone(); return this; }
        public Builder events(OutcomeEvents value) { this.events = value; return this; }
        public Builder metrics(ShaperMetrics value) { this.metrics = value; return this; }
        public Builder listener(OutcomeListener value) { this.listener = value; return this; }
        /** Refuse http and loopback webhooks, as a deployment does. */
        public Builder strictCallbacks(boolean value) { this.strictCallbacks = value; return this; }
        public Builder invokerThreads(int value) { this.invokerThreads = value; return this; }
        /** The runtime's time; share a scaled clock with the Bedrock simulator to shorten a run. */
        public Builder clock(LocalClock value) { this.clock = value; return this; }
        /** Largest submission body in bytes (default: the payload limit, 20 MiB). */
        public Builder maxBodyBytes(int value) { this.maxBodyBytes = value; return this; }
        /** When failed webhooks are tried again; default {@link DeliverySchedule#defaults()}, as deployed. */
        public Builder webhookSchedule(DeliverySchedule value) { this.webhookSchedule = value; return this; }

        public LocalRuntime build() {
            if (catalog == null || clock == null || events == null || metrics == null || listener == null
                    || webhookSchedule == null) {
                throw new IllegalStateException("catalog, clock, events, metrics, listener and webhookSchedule are"
                        + " required");
            }
            if (maxBodyBytes < 1 || maxBodyBytes > PayloadPolicy.DEFAULT_MAX_BYTES) {
                throw new IllegalStateException("maxBodyBytes must be in [1, " + PayloadPolicy.DEFAULT_MAX_BYTES
                        + "], was " + maxBodyBytes);
            }
            if (invokerThreads < 1) {
                throw new IllegalStateException("invokerThreads must be at least 1");
            }
            return new LocalRuntime(this);
        }
    }
}
