package dev.trafficshaper.infra.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeploymentSettingsTest {

    @TempDir
    Path repository;

    private Map<String, Object> context(Map<String, Object> values) throws IOException {
        Files.createDirectories(repository.resolve("config"));
        Files.copy(Path.of("..", "config", "models.json"), repository.resolve("config/models.json"));
        Files.createDirectories(repository.resolve("functions/target"));
        Files.writeString(repository.resolve("functions/target/traffic-shaper-functions.jar"), "jar");
        return new HashMap<>(values);
    }

    @Test
    void defaultsDeployTheDevStageFromTheRepositoryFiles() throws IOException {
        Map<String, Object> context = context(Map.of());
        DeploymentSettings settings = DeploymentSettings.fromContext(context::get, repository);
        assertThat(settings.stage()).isEqualTo(new Stage("dev", false));
        assertThat(settings.stackName()).isEqualTo("TrafficShaper-dev");
        assertThat(settings.webAcl()).isFalse();
        assertThat(settings.quotas()).isEqualTo(PlatformQuotas.DEFAULTS);
        assertThat(settings.throttles()).isEqualTo(ThrottleOverrides.NONE);
        assertThat(settings.payloadRetentionDays()).isEqualTo(30);
        assertThat(settings.models().modelKeys()).contains("nova-lite");
    }

    @Test
    void prodStageIsAProductionStageAndOptionsAreRead() throws IOException {
        Map<String, Object> context = context(Map.of("stage", "prod", "webAcl", "true", "submitRateLimit", "250",
                "statusBurstLimit", "900", "startExecutionRate", "1200", "alarmEmail", "ops@example.com"));
        DeploymentSettings settings = DeploymentSettings.fromContext(context::get, repository);
        assertThat(settings.stage().production()).isTrue();
        assertThat(settings.webAcl()).isTrue();
        assertThat(settings.throttles()).isEqualTo(new ThrottleOverrides(250.0, null, null, 900));
        assertThat(settings.quotas().startExecutionRate()).isEqualTo(1200);
        assertThat(settings.quotas().transitionRate()).isEqualTo(PlatformQuotas.DEFAULTS.transitionRate());
        assertThat(settings.alarmEmail()).isEqualTo("ops@example.com");
    }

    @Test
    void productionCanBeForcedForAnyStageName() throws IOException {
        Map<String, Object> context = context(Map.of("stage", "eu-live", "production", "true"));
        assertThat(DeploymentSettings.fromContext(context::get, repository).stage())
                .isEqualTo(new Stage("eu-live", true));
    }

    @Test
    void missingJarSaysHowToBuildIt() throws IOException {
        Map<String, Object> context = context(Map.of("functionsJar", "nowhere.jar"));
        assertThatThrownBy(() -> DeploymentSettings.fromContext(context::get, repository))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageContaining("the Lambda jar is missing")
                .hasMessageContaining("./mvnw -q -DskipTests package");
    }

    @Test
    void payloadRetentionShorterThanTheFunctionsReadBodiesIsRefused() throws IOException {
        Map<String, Object> context = context(Map.of("payloadRetentionDays", "3"));
        assertThatThrownBy(() -> DeploymentSettings.fromContext(context::get, repository))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageContaining("payloadRetentionDays: 3 days would delete bodies the functions still read")
                .hasMessageContaining("maxDeadlineSeconds 3600 (model nova-lite)")
                .hasMessageContaining("keep them at least 4 days");
        context.put("payloadRetentionDays", "4");
        assertThat(DeploymentSettings.fromContext(context::get, repository).payloadRetentionDays()).isEqualTo(4);
    }

    @Test
    void badStageNameAndNumbersAreRefusedClearly() throws IOException {
        Map<String, Object> badStage = context(Map.of("stage", "Prod_1"));
        assertThatThrownBy(() -> DeploymentSettings.fromContext(badStage::get, repository))
                .hasMessageContaining("stage: 'Prod_1' must be");
        badStage.put("stage", "dev");
        badStage.put("submitRateLimit", "fast");
        assertThatThrownBy(() -> DeploymentSettings.fromContext(badStage::get, repository))
                .hasMessageContaining("submitRateLimit: 'fast' is not a number");
    }

    @Test
    void theStageWideApiLimitOfEarlierVersionsIsRefusedWithItsReplacements() throws IOException {
        Map<String, Object> context = context(Map.of("apiRateLimit", "100"));
        assertThatThrownBy(() -> DeploymentSettings.fromContext(context::get, repository))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageContaining("submitRateLimit, submitBurstLimit, statusRateLimit, statusBurstLimit");
    }

    @Test
    void regionComesFromContextElseFromTheCliDefault() throws IOException {
        Map<String, Object> context = context(Map.of());
        assertThat(DeploymentSettings.fromContext(context::get, repository, null).region()).isNull();
        assertThat(DeploymentSettings.fromContext(context::get, repository, "eu-west-1").region())
                .isEqualTo("eu-west-1");
        context.put("region", "us-east-2");
        assertThat(DeploymentSettings.fromContext(context::get, repository, "eu-west-1").region())
                .isEqualTo("us-east-2");
    }
}
