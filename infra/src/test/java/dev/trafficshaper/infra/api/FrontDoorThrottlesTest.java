package dev.trafficshaper.infra.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.infra.config.InvalidDeploymentException;
import dev.trafficshaper.infra.config.PlatformQuotas;
import dev.trafficshaper.infra.config.ThrottleOverrides;
import org.junit.jupiter.api.Test;

class FrontDoorThrottlesTest {

    @Test
    void unraisedQuotasAdmit270SubmissionsAndFivePollsEachPerSecond() {
        FrontDoorThrottles throttles = FrontDoorThrottles.size(PlatformQuotas.DEFAULTS, ThrottleOverrides.NONE);
        // 0.9 × min(300 StartExecution/s, 1500 transitions/s / 4)
        assertThat(throttles.submit()).isEqualTo(new MethodThrottle(270, 337));
        assertThat(throttles.status()).isEqualTo(new MethodThrottle(1350, 2700));
        assertThat(throttles.other()).isEqualTo(FrontDoorThrottles.OTHER);
    }

    @Test
    void stateTransitionsBindWhenStartExecutionIsRaisedAlone() {
        PlatformQuotas raised = new PlatformQuotas(2_000, 2_000, 1_500, 1_500, 1_000, 10_000, 5_000);
        assertThat(FrontDoorThrottles.size(raised, ThrottleOverrides.NONE).submit().rate()).isEqualTo(337);
    }

    @Test
    void theQuotaRaisesDocumentedForTheDesignTargetAdmitAThousandSubmissionsPerSecond() {
        PlatformQuotas target = new PlatformQuotas(1_112, 2_000, 4_448, 5_000, 3_000, 10_000, 5_000);
        FrontDoorThrottles throttles = FrontDoorThrottles.size(target, ThrottleOverrides.NONE);
        assertThat(throttles.submit().rate()).isGreaterThanOrEqualTo(1_000);
        assertThat(throttles.status().rate()).isEqualTo(5 * throttles.submit().rate());
        assertThat(throttles.totalRate()).isLessThanOrEqualTo(target.apiAccountRate());
    }

    @Test
    void stageSettingsReplaceTheComputedValues() {
        FrontDoorThrottles throttles = FrontDoorThrottles.size(PlatformQuotas.DEFAULTS,
                new ThrottleOverrides(100.0, 150, null, 400));
        assertThat(throttles.submit()).isEqualTo(new MethodThrottle(100, 150));
        // status reads follow the submissions they serve
        assertThat(throttles.status()).isEqualTo(new MethodThrottle(500, 400));
    }

    @Test
    void limitsAboveTheAccountsApiGatewayThrottleAreRefused() {
        assertThatThrownBy(() -> FrontDoorThrottles.size(PlatformQuotas.DEFAULTS,
                new ThrottleOverrides(null, null, 9_900.0, null)))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageContaining("exceed the account's API Gateway throttle of 10000.0/s");
    }
}
