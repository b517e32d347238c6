package dev.trafficshaper.loadtest.aws;

import dev.trafficshaper.client.ShaperClient;
import dev.trafficshaper.loadtest.harness.ObjectStore;
import dev.trafficshaper.local.LocalClock;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClientBuilder;

/** What a worker function is wired to; {@link AwsWorkerEnvironment} builds the deployed one, once per container. */
public interface WorkerEnvironment {

    /** The run's files: {@code s3://<results bucket>/runs/<runId>/} when deployed. */
    ObjectStore run(String runId);

    /** A fresh builder with endpoint, region and credentials set, for one direct arm's client. */
    BedrockRuntimeClientBuilder bedrock();

    /** The shaper's API, signed; shared by every invocation of the container. */
    ShaperClient shaper();

    LocalClock clock();
}
