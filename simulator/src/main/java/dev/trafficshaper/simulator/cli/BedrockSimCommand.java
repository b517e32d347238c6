package dev.trafficshaper.simulator.cli;

import dev.trafficshaper.simulator.bedrock.BedrockSimulator;
import dev.trafficshaper.simulator.bedrock.ModelStats;
import dev.trafficshaper.simulator.provider.Faults;
import dev.trafficshaper.simulator.provider.LatencyModel;
import dev.trafficshaper.simulator.provider.Leniency;
import dev.trafficshaper.simulator.provider.QuotaModel;
import dev.trafficshaper.model.ModelCatalog;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bedrock-sim}: the Bedrock simulator on its own, until the process is stopped. */
@Command(name = "bedrock-sim", mixinStandardHelpOptions = true,
        description = "Serve a Bedrock simulator (bedrock-runtime: Converse, InvokeModel, CountTokens; bedrock-mantle:"
                + " Chat Completions, Responses, Messages) that enforces each model's quota.")
public final class BedrockSimCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--port", required = true, description = "Port to listen on (0 = any free port).")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1",
            description = "Interface to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 to serve other hosts).")
    String host;

    @Option(names = "--models", description = "Models file (JSON); default: the built-in set with nova-lite at 4M TPM.")
    Path models;

    @Option(names = "--quota-model", defaultValue = "token-bucket",
            description = "token-bucket, fixed-window or sliding-window (default: ${DEFAULT-VALUE}).")
    String quotaModel;

    @Option(names = "--background-share", defaultValue = "0",
            description = "Share of each quota used by other applications (default: ${DEFAULT-VALUE}).")
    double backgroundShare;

    @Option(names = "--ttft-ms", defaultValue = "500", description = "Time to first token (default: ${DEFAULT-VALUE}).")
    long timeToFirstTokenMillis;

    @Option(names = "--ms-per-token", defaultValue = "10",
            description = "Generation time per output token (default: ${DEFAULT-VALUE}).")
    double millisPerToken;

    @Option(names = "--latency-scale", defaultValue = "1.0",
            description = "Multiplies every wait: 1 = real time, 0 = answer at once (default: ${DEFAULT-VALUE}).")
    double latencyScale;

    @Option(names = "--output-tokens", defaultValue = "300",
            description = "Output length when a request does not ask for one (default: ${DEFAULT-VALUE}).")
    long outputTokens;

    @Option(names = "--fault-rate", defaultValue = "0",
            description = "Share of accepted calls failing with InternalServerException (default: ${DEFAULT-VALUE}).")
    double faultRate;

    @Option(names = "--timeout-rate", defaultValue = "0",
            description = "Share of accepted calls failing with ModelTimeoutException (default: ${DEFAULT-VALUE}).")
    double timeoutRate;

    @Option(names = "--seed", defaultValue = "1", description = "Seed for faults and jitter (default: ${DEFAULT-VALUE}).")
    long seed;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        BedrockSimulator simulator = BedrockSimulator.builder()
                .catalog(models == null ? ModelCatalog.defaults() : ModelCatalog.read(models))
                .quotaModel(QuotaModel.fromWireName(quotaModel))
                .leniency(Leniency.STRICT)
                .backgroundShare(backgroundShare)
                .latency(new LatencyModel(timeToFirstTokenMillis, millisPerToken, 0.2))
                .latencyScale(latencyScale)
                .defaultOutputTokens(outputTokens)
                .faults(new Faults(faultRate, timeoutRate, 60_000))
                .seed(seed)
                .host(host)
                .port(port)
                .build()
                .start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            simulator.stop();
            stopped.countDown();
        }, "bedrock-sim-shutdown"));
        out.println("Bedrock simulator listening on " + simulator.endpoint());
        for (ModelStats model : simulator.stats()) {
            out.println("  " + model.key() + " = " + model.modelId());
        }
        out.println("bedrock-mantle: OpenAI base URL " + simulator.endpoint() + "/v1, Anthropic base URL "
                + simulator.endpoint() + "/anthropic");
        out.println("Try: aws bedrock-runtime converse --endpoint-url " + simulator.endpoint()
                + " --region us-east-1 --model-id amazon.nova-lite-v1:0"
                + " --messages '[{\"role\":\"user\",\"content\":[{\"text\":\"hi\"}]}]'   (stats: "
                + simulator.endpoint() + BedrockSimulator.STATS_PATH + "; Ctrl-C to stop)");
        out.flush();
        stopped.await();
        return 0;
    }
}
