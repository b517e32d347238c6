package dev.trafficshaper.simulator.bedrock;

import com.sun.net.httpserver.HttpServer;
import dev.trafficshaper.simulator.provider.Faults;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.ProviderQuota;
import dev.trafficshaper.simulator.provider.QuotaModel;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.threads.DaemonThreads;
import dev.trafficshaper.model.ModelConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import dev.trafficshaper.quota.Quota;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

/**
 * An HTTP server that answers like Bedrock: bedrock-runtime (Converse, InvokeModel, CountTokens)
 * and bedrock-mantle (OpenAI Chat Completions and Responses, Anthropic Messages) on one port, and
 * enforces each catalog model's quota with the same provider model the virtual-time simulator
 * uses. Point any Bedrock, OpenAI or Anthropic client at {@link #endpoint()} (the Anthropic SDK at
 * {@code endpoint()/anthropic}).
 *
 * <pre>{@code
 * try (BedrockSimulator bedrock = BedrockSimulator.builder().latencyScale(0).build().start()) {
 *     BedrockRuntimeClient client = BedrockRuntimeClient.builder()
 *             .endpointOverride(bedrock.endpoint()) ... .build();
 * }
 * }</pre>
 */
public final class BedrockSimulator implements AutoCloseable {

    /** Path of the JSON statistics endpoint (calls, successes, throttles per model). */
    public static final String STATS_PATH = BedrockHttpHandler.STATS_PATH;

    private final SimulatedBedrock bedrock;
    private final Clock clock;
    private final String host;
    private final int requestedPort;
    private final int threads;
    private HttpServer server;
    private ExecutorService executor;

    private BedrockSimulator(Builder builder, SimulatedBedrock bedrock) {
        this.bedrock = bedrock;
        this.clock = builder.clock;
        this.host = builder.host;
        this.requestedPort = builder.port;
        this.threads = builder.threads;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Binds the port and starts serving; returns this for chaining. */
    public synchronized BedrockSimulator start() {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        try {
            server = HttpServer.create(new InetSocketAddress(host, requestedPort), 1024);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + host + ":" + requestedPort, e);
        }
        // Each in-flight generation sleeps on its own thread, so the pool bounds concurrency.
        executor = DaemonThreads.boundedPool("bedrock-sim", threads);
        server.createContext("/", new BedrockHttpHandler(bedrock, clock));
        server.setExecutor(executor);
        server.start();
        return this;
    }

    /** Stops accepting requests and lets those in flight finish for up to a second. */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        server.stop(0);
        DaemonThreads.shutdown(executor, 1_000);
        server = null;
        executor = null;
    }

    @Override
    public void close() {
        stop();
    }

    /** The base URI to give a client as its endpoint override, e.g. {@code http://127.0.0.1:41234}. */
    public synchronized URI endpoint() {
        if (server == null) {
            throw new IllegalStateException("not started");
        }
        return URI.create("http://" + hostForUri() + ":" + server.getAddress().getPort());
    }

    public synchronized int port() {
        if (server == null) {
            throw new IllegalStateException("not started");
        }
        return server.getAddress().getPort();
    }

    /** Counters per model, in catalog order. */
    public List<ModelStats> stats() {
        return bedrock.stats();
    }

    public Optional<ModelStats> stats(String keyOrModelId) {
        return bedrock.stats().stream()
                .filter(s -> s.key().equals(keyOrModelId) || s.modelId().equals(keyOrModelId))
                .findFirst();
    }

    public ModelStats totals() {
        return ModelStats.sum("total", bedrock.stats());
    }

    /** Converse and InvokeModel calls over all models. */
    public long calls() {
        return totals().calls();
    }

    public long throttles() {
        return totals().throttles();
    }

    private static String group(ModelConfig config) {
        return config.backend().endpoint() + " " + config.modelId();
    }

    private static Quota sum(Quota a, Quota b) {
        return new Quota(a.tpm() + b.tpm(), a.rpm() + b.rpm(), a.inputTpm() + b.inputTpm(),
                a.outputTpm() + b.outputTpm(), Math.max(a.outputBurndown(), b.outputBurndown()),
                a.outputAllowanceOnInput() || b.outputAllowanceOnInput());
    }

    private String hostForUri() {
        return host.contains(":") ? "[" + host + "]" : host;
    }


    public static final class Builder {

        private ModelCatalog catalog = ModelCatalog.defaults();
        private QuotaModel quotaModel = QuotaModel.TOKEN_BUCKET;
        private Leniency leniency = Leniency.STRICT;
        private double backgroundShare;
        private LatencyModel latency = new LatencyModel(500, 10.0, 0.2);
        private double latencyScale = 1.0;
        private Faults faults = Faults.NONE;
        private long defaultOutputTokens = 300;
        private long seed = 1;
        private Clock clock = Clock.systemUTC();
        private String host = "127.0.0.1";
        private int port;
        private int threads = 256;

        private Builder() {
        }

        public Builder catalog(ModelCatalog catalog) {
            this.catalog = catalog;
            return this;
        }

        public Builder quotaModel(QuotaModel quotaModel) {
            this.quotaModel = quotaModel;
            return this;
        }

        public Builder leniency(Leniency leniency) {
            this.leniency = leniency;
            return this;
        }

        /** Share of every quota used by other applications, never available to clients. */
        public Builder backgroundShare(double backgroundShare) {
            this.backgroundShare = backgroundShare;
            return this;
        }

        public Builder latency(LatencyModel latency) {
            this.latency = latency;
            return this;
        }

        /** Multiplies every modelled wait: 1.0 is real time, 0.01 a hundred times faster, 0 answers at once. */
        public Builder latencyScale(double latencyScale) {
            this.latencyScale = latencyScale;
            return this;
        }

        public Builder faults(Faults faults) {
            this.faults = faults;
            return this;
        }

        /** Output length of a request that does not ask for one (capped at its maxTokens). */
        public Builder defaultOutputTokens(long defaultOutputTokens) {
            this.defaultOutputTokens = defaultOutputTokens;
            return this;
        }

        /** Seeds the fault draws and latency jitter. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** The clock the quota meters read; the waits themselves are real. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** Interface to listen on; 127.0.0.1 unless set (use 0.0.0.0 to serve other hosts). */
        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /** 0 picks a free port. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Requests served at once; each in-flight generation holds one thread. */
        public Builder threads(int threads) {
            this.threads = threads;
            return this;
        }

        public BedrockSimulator build() {
            if (catalog == null || quotaModel == null || leniency == null || latency == null || faults == null
                    || clock == null || host == null) {
                throw new IllegalArgumentException("catalog, quota model, leniency, latency, faults, clock and host"
                        + " are required");
            }
            if (!(latencyScale >= 0) || Double.isInfinite(latencyScale)) {
                throw new IllegalArgumentException("latencyScale must be a finite number >= 0, was " + latencyScale);
            }
            if (defaultOutputTokens < 0) {
                throw new IllegalArgumentException("defaultOutputTokens must not be negative");
            }
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be in [0, 65535], was " + port);
            }
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be at least 1");
            }
            // Bedrock meters a model per endpoint, whichever API calls it: keys naming one model id on
            // one endpoint share one quota (the sum of theirs) and one prompt cache.
            Map<String, Quota> shared = new LinkedHashMap<>();
            for (ModelConfig config : catalog.all()) {
                shared.merge(group(config), config.quota(), BedrockSimulator::sum);
            }
            Map<String, ProviderQuota> quotas = new HashMap<>();
            Map<String, PromptCache> caches = new HashMap<>();
            List<SimulatedModel> models = new ArrayList<>();
            for (ModelConfig config : catalog.all()) {
                String group = group(config);
                models.add(new SimulatedModel(config, quotas.computeIfAbsent(group, g -> ProviderQuota.create(
                        shared.get(g), quotaModel, leniency, backgroundShare)),
                        caches.computeIfAbsent(group, g -> new PromptCache())));
            }
            return new BedrockSimulator(this, new SimulatedBedrock(models, latency, latencyScale, faults,
                    defaultOutputTokens, seed, clock));
        }
    }
}
