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
        assertThat(settings.apiRateLimit()).isEqualTo(100);
        assertThat(settings.payloadRetentionDays()).isEqualTo(30);
        assertThat(settings.models().modelKeys()).contains("nova-lite");
    }

    @Test
    void prodStageIsAProductionStageAndOptionsAreRead() throws IOException {
        Map<String, Object> context = context(Map.of("stage", "prod", "webAcl", "true", "apiRateLimit", "250",
                "alarmEmail", "ops@example.com"));
        DeploymentSettings settings = DeploymentSettings.fromContext(context::get, repository);
        assertThat(settings.stage().production()).isTrue();
        assertThat(settings.webAcl()).isTrue();
        assertThat(settings.apiRateLimit()).isEqualTo(250);
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
        badStage.put("apiRateLimit", "fast");
        assertThatThrownBy(() -> DeploymentSettings.fromContext(badStage::get, repository))
                .hasMessageContaining("apiRateLimit: 'fast' is not a number");
    }
}
