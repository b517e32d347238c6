package dev.trafficshaper.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.model.ModelCatalog;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AdmitTimeoutTest {

    private static final long NOW = 1_700_000_000_000L;

    @Test
    void theTimeoutIsTheRequestsOwnRemainingDeadlinePlusTheGrace() {
        AdmitTimeout timeout = AdmitTimeout.of(3_600, Duration.ofSeconds(120));

        assertThat(timeout.seconds(NOW + 60_000, NOW)).isEqualTo(180);
        assertThat(timeout.seconds(NOW + 5_000, NOW)).isEqualTo(125);
        assertThat(timeout.seconds(NOW + 4_001, NOW)).as("rounded up to a whole second").isEqualTo(125);
    }

    @Test
    void aDeadlineAlreadyPassedWaitsTheGraceAlone() {
        assertThat(AdmitTimeout.of(3_600, Duration.ofSeconds(120)).seconds(NOW - 10_000, NOW)).isEqualTo(120);
    }

    @Test
    void noTimeoutIsLongerThanTheLongestDeadlinePlusTheGrace() {
        AdmitTimeout timeout = AdmitTimeout.of(600, Duration.ofSeconds(120));

        assertThat(timeout.seconds(NOW + 10_000_000, NOW)).isEqualTo(720);
        assertThat(timeout.capSeconds()).isEqualTo(720);
    }

    @Test
    void theCapComesFromTheCatalogsLongestMaxDeadline() {
        ModelCatalog catalog = ModelCatalog.parse("""
                {"models": {
                  "a": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000}, "maxTokens": 100,
                        "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 600},
                  "b": {"modelId": "amazon.nova-pro-v1:0", "quotas": {"tpm": 1000}, "maxTokens": 100,
                        "defaultDeadlineSeconds": 60, "maxDeadlineSeconds": 900}
                }}""");

        assertThat(AdmitTimeout.forCatalog(catalog, Duration.ofSeconds(120)).capSeconds()).isEqualTo(1_020);
    }

    @Test
    void aDeadlineLongerThanAStandardExecutionMayRunIsRefused() {
        assertThatThrownBy(() -> AdmitTimeout.of(AdmitTimeout.STANDARD_EXECUTION_LIMIT_SECONDS, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Standard execution");
        assertThatThrownBy(() -> AdmitTimeout.of(60, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }
}
