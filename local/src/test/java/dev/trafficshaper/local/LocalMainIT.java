package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The local server's command line: clear refusals, and a working start with the embedded simulator. */
class LocalMainIT {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine command = new CommandLine(new LocalMain());
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));
        return command.execute(args);
    }

    @Test
    void badModelsFileExitsWith2NamingTheFileAndEveryProblem() throws IOException {
        Path models = Files.writeString(dir.resolve("models.json"), """
                {"models": {"broken": {"quotas": {"tpm": -1}}}}""");

        int exit = run("--port", "0", "--models", models.toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains(models.toString())
                .contains("models.broken.quotas.tpm").contains("models.broken.modelId: required");
        assertThat(out.toString()).doesNotContain("listening");
    }

    @Test
    void missingModelsFileExitsWith2() {
        Path missing = dir.resolve("absent.json");

        int exit = run("--port", "0", "--models", missing.toString());

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains(missing.toString()).contains("cannot read");
    }

    @Test
    void twoBedrocksAtOnceAreRefused() {
        int exit = run("--port", "0", "--real-bedrock", "--bedrock-endpoint", "http://127.0.0.1:1");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--real-bedrock and --bedrock-endpoint exclude each other");
    }

    @Test
    void unknownQuotaModelIsRefused() {
        int exit = run("--port", "0", "--quota-model", "leaky");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--quota-model").contains("leaky");
    }

    @Test
    void startsTheApiOnTheEmbeddedSimulatorWithTheSameModels() throws IOException {
        Path models = Files.writeString(dir.resolve("models.json"), """
                {"models": {"tiny": {"modelId": "test.tiny-v1:0", "quotas": {"tpm": 60000}, "maxTokens": 50}}}""");
        LocalMain main = new LocalMain();
        new CommandLine(main).parseArgs("--port", "0", "--models", models.toString(), "--quota-model",
                "sliding-window");

        try (LocalMain.Running running = main.start()) {
            Api api = new Api(running.server().baseUri());
            String id = api.submit(Api.body("tiny", "", "hello", 20)).json().path("requestId").asText();
            Api.Answer done = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                    .until(() -> api.status(id, null), answer -> answer.status() != 202);

            assertThat(running.simulator()).isNotNull();
            assertThat(running.bedrockEndpoint()).isEqualTo(running.simulator().endpoint());
            assertThat(done.status()).as(done.raw().body()).isEqualTo(200);
            assertThat(done.json().path("usage").path("outputTokens").asLong()).isEqualTo(20);
            assertThat(running.simulator().stats("tiny").orElseThrow().calls()).isEqualTo(1);
            assertThat(api.get("/v1/models").json().path("models").get(0).path("key").asText()).isEqualTo("tiny");
        }
    }
}
