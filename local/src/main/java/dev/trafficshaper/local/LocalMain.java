package dev.trafficshaper.local;

import dev.trafficshaper.aws.HttpKeepAlive;
import dev.trafficshaper.model.InvalidModelsFileException;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import dev.trafficshaper.simulator.provider.QuotaModel;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code java -jar functions/target/traffic-shaper-local.jar --port P}: the whole shaper in one
 * process behind the same HTTP API as on AWS. Without {@code --bedrock-endpoint} or
 * {@code --real-bedrock} it starts the Bedrock simulator on a free port with the same models file,
 * so the simulator enforces exactly the quotas the pacer paces to.
 */
@Command(name = "traffic-shaper-local", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run the traffic shaper locally: the HTTP API, queue, pacer and delivery in one process.",
                "By default Bedrock is the embedded simulator, enforcing the quotas of the models file."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:stopped normally", "1:could not start (e.g. the port is in use)",
                "2:bad arguments or models file"})
public final class LocalMain implements Callable<Integer> {

    static final String DEFAULT_WEBHOOK_SECRET = "local-webhook-secret";

    @Spec
    CommandSpec spec;

    @Option(names = "--port", defaultValue = "8080",
            description = "Port for the API (0 = any free port; default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1",
            description = "Interface to listen on (default: ${DEFAULT-VALUE}, this machine only).")
    String host;

    @Option(names = "--public-url", paramLabel = "URL",
            description = "Base of every statusUrl the API answers (e.g. a proxy in front); default: the address"
                    + " it listens on. Never taken from the request's Host header.")
    URI publicUrl;

    @Option(names = "--models", paramLabel = "FILE",
            description = "Models file (JSON); default: the built-in set (nova-lite at 4M TPM, a Claude-class model).")
    Path models;

    @Option(names = "--bedrock-endpoint", paramLabel = "URL",
            description = "Send model calls to this Bedrock Runtime endpoint (e.g. a simulator started separately).")
    URI bedrockEndpoint;

    @Option(names = "--real-bedrock",
            description = "Send model calls to Amazon Bedrock with the default AWS credentials and region.")
    boolean realBedrock;

    @Option(names = "--quota-model", paramLabel = "MODEL",
            description = "How the embedded simulator meters quotas: token-bucket, fixed-window or sliding-window "
                    + "(default: token-bucket).")
    String quotaModel;

    @Option(names = "--webhook-secret", paramLabel = "SECRET",
            description = "Secret for the webhooks' HMAC-SHA256 signature (default: '" + DEFAULT_WEBHOOK_SECRET + "').")
    String webhookSecret;

    @Option(names = "--dynamodb-table", paramLabel = "TABLE",
            description = "Keep state in this DynamoDB table (created if missing) and its payloads in"
                    + " --payload-bucket, with the adapters the Lambda functions use; AWS_ENDPOINT_URL points"
                    + " them at an emulator. Default: in memory.")
    String dynamoDbTable;

    @Option(names = "--payload-bucket", paramLabel = "BUCKET", defaultValue = "traffic-shaper-local-payloads",
            description = "S3 bucket for bodies over 8 KiB with --dynamodb-table (created if missing;"
                    + " default: ${DEFAULT-VALUE}).")
    String payloadBucket;

    @Option(names = "--time-scale", paramLabel = "FACTOR", defaultValue = "1",
            description = "Run the shaper's clock (and the embedded simulator's) FACTOR times as fast as the wall"
                    + " clock, to play quota minutes in seconds (default: ${DEFAULT-VALUE}).")
    double timeScale;

    @Option(names = "--time-anchor", paramLabel = "EPOCH_MILLIS",
            description = "With --time-scale: the wall time at which the scaled clock read the wall clock (default:"
                    + " the start). Give a restarted server the first one's anchor and it keeps the same time.")
    Long timeAnchor;

    @Option(names = "--strict-callbacks",
            description = "Refuse http and loopback callback URLs, as a deployment does.")
    boolean strictCallbacks;

    public static void main(String[] args) {
        System.exit(new CommandLine(new LocalMain()).execute(args));
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Running running;
        try {
            running = start();
        } catch (ParameterException e) {
            throw e;
        } catch (InvalidModelsFileException e) {
            err.println("traffic-shaper-local: invalid models file " + models + ":\n  - "
                    + String.join("\n  - ", e.problems()));
            err.flush();
            return 2;
        } catch (RuntimeException e) {
            err.println("traffic-shaper-local: cannot start: " + e.getMessage());
            err.flush();
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            running.close();
            stopped.countDown();
        }, "traffic-shaper-local-shutdown"));
        printBanner(running, out);
        stopped.await();
        return 0;
    }

    /** What {@link #start()} started; closing stops all of it. */
    record Running(LocalServer server, LocalRuntime runtime, BedrockSimulator simulator, URI bedrockEndpoint)
            implements AutoCloseable {

        @Override
        public void close() {
            server.close();
            runtime.close();
            if (simulator != null) {
                simulator.close();
            }
        }
    }

    /**
     * Starts the simulator (unless another Bedrock is named), the runtime and the server.
     *
     * @throws ParameterException          for contradictory options
     * @throws InvalidModelsFileException  for a models file that cannot be used
     */
    Running start() {
        if (realBedrock && bedrockEndpoint != null) {
            throw new ParameterException(spec.commandLine(),
                    "--real-bedrock and --bedrock-endpoint exclude each other: choose one Bedrock");
        }
        boolean embedded = !realBedrock && bedrockEndpoint == null;
        if (!embedded && quotaModel != null) {
            throw new ParameterException(spec.commandLine(),
                    "--quota-model applies only to the embedded simulator (no --bedrock-endpoint, no --real-bedrock)");
        }
        QuotaModel metering = QuotaModel.TOKEN_BUCKET;
        if (quotaModel != null) {
            try {
                metering = QuotaModel.fromWireName(quotaModel);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--quota-model: " + e.getMessage());
            }
        }
        if (!(timeScale > 0) || Double.isInfinite(timeScale)) {
            throw new ParameterException(spec.commandLine(), "--time-scale must be a finite number > 0");
        }
        LocalClock clock;
        try {
            clock = LocalClock.scaledSince(timeScale, timeAnchor == null ? System.currentTimeMillis() : timeAnchor);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--time-anchor: " + e.getMessage());
        }
        HttpKeepAlive.ensure();
        ModelCatalog catalog = models == null ? ModelCatalog.defaults() : ModelCatalog.read(models);
        BedrockSimulator simulator = null;
        URI endpoint = bedrockEndpoint;
        if (embedded) {
            simulator = BedrockSimulator.builder().catalog(catalog).quotaModel(metering).clock(clock.asClock()).port(0)
                    .build().start();
            endpoint = simulator.endpoint();
        }
        LocalRuntime runtime = null;
        try {
            LocalRuntime.Builder builder = LocalRuntime.builder();
            if (dynamoDbTable != null) {
                builder.stores(LocalStores.dynamoDb(DynamoDbClient.create(), S3Client.builder()
                        .forcePathStyle(true).build(), dynamoDbTable, payloadBucket));
            }
            runtime = builder
                    .catalog(catalog)
                    .clock(clock)
                    .bedrockEndpoint(endpoint)
                    .strictCallbacks(strictCallbacks)
                    .webhookSecret((webhookSecret == null ? DEFAULT_WEBHOOK_SECRET : webhookSecret)
                            .getBytes(StandardCharsets.UTF_8))
                    .build();
            LocalServer.Options options = new LocalServer.Options(new InetSocketAddress(host, port));
            if (publicUrl != null) {
                options.publicBaseUri(publicUrl);
            }
            LocalServer server = LocalServer.start(runtime, options);
            return new Running(server, runtime, simulator, endpoint);
        } catch (RuntimeException e) {
            if (runtime != null) {
                runtime.close();
            }
            if (simulator != null) {
                simulator.close();
            }
            throw e;
        }
    }

    private void printBanner(Running running, PrintWriter out) {
        URI api = running.server().baseUri();
        out.println("Traffic shaper (local) listening on " + api);
        if (running.simulator() != null) {
            out.println("Bedrock: embedded simulator at " + running.bedrockEndpoint() + " ("
                    + (quotaModel == null ? QuotaModel.TOKEN_BUCKET.wireName() : quotaModel)
                    + " quotas from the same models file)");
        } else if (realBedrock) {
            out.println("Bedrock: Amazon Bedrock with the default AWS credentials and region;"
                    + " the models file's quotas must match your account's.");
        } else {
            out.println("Bedrock: " + running.bedrockEndpoint());
        }
        out.println("State: " + (dynamoDbTable == null
                ? "in memory: every accepted request is lost when this process ends; pass --dynamodb-table NAME"
                        + " for state that survives a restart"
                : "DynamoDB table " + dynamoDbTable
                + ", bucket " + payloadBucket + (System.getenv("AWS_ENDPOINT_URL") == null ? ""
                : " at " + System.getenv("AWS_ENDPOINT_URL"))));
        out.println("Models:");
        String firstModel = null;
        for (ModelConfig model : running.runtime().catalog().all()) {
            firstModel = firstModel == null ? model.key() : firstModel;
            out.println("  " + model.key() + " = " + model.modelId() + "  " + quota(model.quota()) + ", target "
                    + Math.round(model.pacer().targetUtilization() * 100) + "%, maxTokens up to "
                    + model.maxTokensLimit());
        }
        out.println("Tenant: header " + LocalServer.TENANT_HEADER + ", else '" + LocalServer.DEFAULT_TENANT
                + "' (local only: on AWS the tenant is the caller's IAM principal, never a header).");
        out.println("Webhooks: signed with HMAC-SHA256 in X-Shaper-Signature"
                + (webhookSecret == null ? " (secret '" + DEFAULT_WEBHOOK_SECRET + "'; set --webhook-secret)" : "")
                + (strictCallbacks ? "; https and public addresses only" : "; http and loopback allowed") + ".");
        out.println("Try:");
        out.println("  curl -s -X POST " + api + LocalServer.REQUESTS_PATH + " -H 'Content-Type: application/json' \\");
        out.println("       -d '{\"model\":\"" + firstModel + "\",\"converse\":{\"messages\":[{\"role\":\"user\","
                + "\"content\":[{\"text\":\"Hello\"}]}],\"inferenceConfig\":{\"maxTokens\":200}}}'");
        out.println("  curl -s " + api + LocalServer.REQUESTS_PATH + "/<requestId>");
        out.println("  curl -s " + api + LocalServer.MODELS_PATH);
        out.println("Ctrl-C to stop.");
        out.flush();
    }

    private static String quota(Quota q) {
        StringBuilder text = new StringBuilder();
        append(text, "tpm", q.tpm());
        append(text, "rpm", q.rpm());
        append(text, "inputTpm", q.inputTpm());
        append(text, "outputTpm", q.outputTpm());
        if (q.outputBurndown() != 1) {
            text.append(", output burndown ").append(q.outputBurndown()).append('x');
        }
        return text.toString();
    }

    private static void append(StringBuilder text, String name, long value) {
        if (value > 0) {
            text.append(text.length() == 0 ? "" : ", ").append(name).append(' ').append(value);
        }
    }
}
