package dev.trafficshaper.loadtest.aws;

import dev.trafficshaper.client.ShaperClient;
import dev.trafficshaper.client.aws.AwsSigV4Signer;
import dev.trafficshaper.loadtest.harness.ObjectStore;
import dev.trafficshaper.loadtest.harness.RunLayout;
import dev.trafficshaper.local.LocalClock;
import java.net.URI;
import java.time.Duration;
import java.util.function.Function;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClientBuilder;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The composition root of the load-test functions: reads the environment the stack sets
 * ({@value #BUCKET}, {@value #SHAPER_API}, and Lambda's {@code AWS_REGION}) and builds each client
 * once per container.
 */
public final class AwsWorkerEnvironment implements WorkerEnvironment {

    public static final String BUCKET = "RESULTS_BUCKET";
    public static final String SHAPER_API = "SHAPER_API_URL";

    private final S3Client s3;
    private final String bucket;
    private final Region region;
    private final URI shaperApi;
    private ShaperClient shaper;

    private AwsWorkerEnvironment(Function<String, String> environment) {
        this.bucket = require(environment, BUCKET);
        this.region = Region.of(require(environment, "AWS_REGION"));
        String api = environment.apply(SHAPER_API);
        this.shaperApi = api == null || api.isBlank() ? null : URI.create(api);
        this.s3 = S3Client.builder().region(region).httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    }

    public static AwsWorkerEnvironment fromSystem() {
        return new AwsWorkerEnvironment(System::getenv);
    }

    S3Client s3() {
        return s3;
    }

    String bucket() {
        return bucket;
    }

    @Override
    public ObjectStore run(String runId) {
        return new S3ObjectStore(s3, bucket, RunLayout.runPrefix(runId));
    }

    @Override
    public BedrockRuntimeClientBuilder bedrock() {
        return BedrockRuntimeClient.builder().region(region);
    }

    @Override
    public synchronized ShaperClient shaper() {
        if (shaperApi == null) {
            throw new IllegalStateException(SHAPER_API + " is not set: the stack was deployed without the shaper's"
                    + " API URL");
        }
        if (shaper == null) {
            shaper = ShaperClient.builder().baseUri(shaperApi).signer(AwsSigV4Signer.create(region.id()))
                    .requestTimeout(Duration.ofSeconds(30)).build();
        }
        return shaper;
    }

    @Override
    public LocalClock clock() {
        return LocalClock.system();
    }

    private static String require(Function<String, String> environment, String name) {
        String value = environment.apply(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("environment variable " + name + " is not set");
        }
        return value;
    }
}
