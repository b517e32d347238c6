package dev.trafficshaper.testing;

import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/** Starts LocalStack through Testcontainers; the Ryuk container removes it when the JVM exits. */
final class LocalStack {

    private LocalStack() {
    }

    static AwsEmulator start(String image) {
        LocalStackContainer container = new LocalStackContainer(DockerImageName.parse(image))
                .withServices(LocalStackContainer.Service.DYNAMODB, LocalStackContainer.Service.S3,
                        LocalStackContainer.EnabledService.named("stepfunctions"),
                        LocalStackContainer.EnabledService.named("lambda"));
        container.start();
        AwsCredentialsProvider credentials = StaticCredentialsProvider.create(
                AwsBasicCredentials.create(container.getAccessKey(), container.getSecretKey()));
        return AwsEmulator.of(AwsEmulator.Kind.LOCALSTACK, container.getEndpoint(),
                Region.of(container.getRegion()), credentials);
    }
}
