package dev.trafficshaper.testing;

import dev.trafficshaper.aws.dynamodb.TableLayout;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The AWS API emulator that integration tests ({@code *IT}) talk to, one per JVM. Where it comes
 * from, first match wins:
 * <ol>
 *   <li>{@code AWS_ENDPOINT_URL} when set: an emulator someone else runs;</li>
 *   <li>LocalStack through Testcontainers when a Docker engine answers;</li>
 *   <li>the moto server ({@code python3} with {@code moto[server]}), started single-threaded on a
 *       free loopback port by {@code moto_server.py} and stopped when the JVM exits.</li>
 * </ol>
 * With none of them the first call fails with what to install: integration tests never skip.
 *
 * <p>Use from any module's IT (shared's test-jar):
 * <pre>{@code
 * AwsEmulator aws = AwsEmulator.shared();
 * String table = aws.createTable("requests");        // fresh single table with TTL
 * DynamoDbClient dynamoDb = aws.dynamoDb();
 * SfnClient sfn = aws.configure(SfnClient.builder()).build();   // any other SDK client
 * aws.configureMoto("{\"stepfunctions\": {\"execute_state_machine\": true}}");  // moto only
 * }</pre>
 */
public final class AwsEmulator {

    /** Where the endpoint came from. */
    public enum Kind { ENDPOINT_URL, LOCALSTACK, MOTO }

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final String LOCALSTACK_IMAGE = "localstack/localstack:4.4";
    private static AwsEmulator shared;
    private static AwsEmulator moto;

    private final Kind kind;
    private final URI endpoint;
    private final Region region;
    private final AwsCredentialsProvider credentials;
    private final SdkHttpClient http = UrlConnectionHttpClient.builder()
            .socketTimeout(Duration.ofSeconds(60)).connectionTimeout(Duration.ofSeconds(10)).build();
    private DynamoDbClient dynamoDb;
    private S3Client s3;

    private AwsEmulator(Kind kind, URI endpoint, Region region, AwsCredentialsProvider credentials) {
        this.kind = kind;
        this.endpoint = endpoint;
        this.region = region;
        this.credentials = credentials;
    }

    static AwsEmulator of(Kind kind, URI endpoint, Region region, AwsCredentialsProvider credentials) {
        return new AwsEmulator(kind, endpoint, region, credentials);
    }

    /** The emulator for this JVM, started on first use. */
    public static synchronized AwsEmulator shared() {
        if (shared == null) {
            shared = start();
        }
        return shared;
    }

    /**
     * The moto server this JVM started from {@code moto_server.py}, whatever {@link #shared()} chose,
     * for tests that need its patches (see {@link StateMachineHarness}); the same instance as
     * {@code shared()} when that is moto. Fails like {@code shared()} when moto is not installed.
     */
    public static synchronized AwsEmulator moto() {
        if (moto == null) {
            moto = startMoto(testCredentials());
        }
        return moto;
    }

    public Kind kind() {
        return kind;
    }

    public URI endpoint() {
        return endpoint;
    }

    public Region region() {
        return region;
    }

    public AwsCredentialsProvider credentials() {
        return credentials;
    }

    /** Points any SDK client builder at the emulator: endpoint, region, credentials, HTTP client. */
    public <B extends AwsClientBuilder<B, ?> & AwsSyncClientBuilder<B, ?>> B configure(B builder) {
        return builder.endpointOverride(endpoint).region(region).credentialsProvider(credentials).httpClient(http);
    }

    public synchronized DynamoDbClient dynamoDb() {
        if (dynamoDb == null) {
            dynamoDb = configure(DynamoDbClient.builder()).build();
        }
        return dynamoDb;
    }

    public synchronized S3Client s3() {
        if (s3 == null) {
            s3 = configure(S3Client.builder()).forcePathStyle(true).build();
        }
        return s3;
    }

    /** Creates a new single table (keys, TTL) named {@code prefix-<random>} and returns its name. */
    public String createTable(String prefix) {
        String name = uniqueName(prefix);
        TableLayout.create(dynamoDb(), name);
        return name;
    }

    /** Creates a new bucket named {@code prefix-<random>} (lower case) and returns its name. */
    public String createBucket(String prefix) {
        String name = uniqueName(prefix).toLowerCase(Locale.ROOT);
        s3().createBucket(b -> b.bucket(name));
        return name;
    }

    /**
     * Applies moto settings through its config API, e.g.
     * {@code {"stepfunctions": {"execute_state_machine": true}}}. Does nothing on other emulators.
     */
    public void configureMoto(String json) {
        if (kind != Kind.MOTO) {
            return;
        }
        try {
            HttpURLConnection connection = (HttpURLConnection) endpoint.resolve("/moto-api/config").toURL()
                    .openConnection();
            connection.setRequestMethod("POST");
            connection.setDoOutput(true);
            connection.setRequestProperty("Content-Type", "application/json");
            connection.getOutputStream().write(json.getBytes(StandardCharsets.UTF_8));
            int status = connection.getResponseCode();
            if (status / 100 != 2) {
                throw new IllegalStateException("moto refused config " + json + ": HTTP " + status);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String uniqueName(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static StaticCredentialsProvider testCredentials() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));
    }

    private static AwsEmulator start() {
        StaticCredentialsProvider testCredentials = testCredentials();
        String fromEnvironment = System.getenv("AWS_ENDPOINT_URL");
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            String region = System.getenv().getOrDefault("AWS_REGION", "us-east-1");
            return new AwsEmulator(Kind.ENDPOINT_URL, URI.create(fromEnvironment), Region.of(region),
                    testCredentials);
        }
        if (DockerProbe.engineAnswers()) {
            return LocalStack.start(LOCALSTACK_IMAGE);
        }
        return moto();
    }

    private static AwsEmulator startMoto(AwsCredentialsProvider credentials) {
        String python = System.getenv().getOrDefault("MOTO_PYTHON", "python3");
        Path script;
        Process process;
        try {
            script = Files.createTempFile("moto_server", ".py");
            try (InputStream in = AwsEmulator.class.getResourceAsStream("moto_server.py")) {
                Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
            }
            script.toFile().deleteOnExit();
            Path log = motoLog();
            process = new ProcessBuilder(python, script.toString()).redirectError(log.toFile()).start();
            Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "stop-moto"));
            int port = readPort(process, log);
            URI endpoint = URI.create("http://127.0.0.1:" + port);
            waitUntilAnswering(endpoint);
            return new AwsEmulator(Kind.MOTO, endpoint, Region.US_EAST_1, credentials);
        } catch (IOException e) {
            throw noEmulator("could not start '" + python + "': " + e.getMessage());
        }
    }

    /**
     * Where the moto server's standard error goes: the build's {@code target} directory when the
     * tests run in one (kept, so a failed run can show the server's side, watchdog reports
     * included), a temporary file otherwise.
     */
    private static Path motoLog() throws IOException {
        Path target = Path.of("target");
        if (Files.isDirectory(target)) {
            return Files.createTempFile(target, "moto-server-", ".log");
        }
        Path log = Files.createTempFile("moto-server-", ".log");
        log.toFile().deleteOnExit();
        return log;
    }

    private static int readPort(Process process, Path log) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        ExecutorService reader = Executors.newSingleThreadExecutor();
        try {
            Future<String> line = reader.submit(out::readLine);
            String first = line.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (first == null || !first.startsWith("MOTO_PORT=")) {
                throw noEmulator("the moto server did not start: " + Files.readString(log).strip());
            }
            return Integer.parseInt(first.substring("MOTO_PORT=".length()).strip());
        } catch (TimeoutException e) {
            process.destroy();
            throw noEmulator("the moto server did not report a port within " + START_TIMEOUT.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new UncheckedIOException(new IOException(e.getCause()));
        } finally {
            reader.shutdownNow();
        }
    }

    private static void waitUntilAnswering(URI endpoint) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            try {
                HttpURLConnection connection = (HttpURLConnection) endpoint.resolve("/moto-api/data.json").toURL()
                        .openConnection();
                connection.setConnectTimeout(1000);
                if (connection.getResponseCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw noEmulator("the moto server at " + endpoint + " does not answer: " + e.getMessage());
                }
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }

    static IllegalStateException noEmulator(String why) {
        return new IllegalStateException("No AWS emulator for the integration tests (" + why + "). Either set "
                + "AWS_ENDPOINT_URL to a running emulator, start a Docker engine (LocalStack is then started "
                + "through Testcontainers), or install the moto server: pip install 'moto[server]==5.2.1' "
                + "(python3 on the PATH, or MOTO_PYTHON naming the interpreter).");
    }
}
