package dev.trafficshaper.loadtest.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RequestIdsTest {

    @Test
    void everyArmHasItsOwnIdsThatNameRunArmAndIndex() {
        String run = RequestIds.newRunId(Instant.parse("2025-03-01T10:15:00Z"), new SplittableRandom(1));
        assertThat(run).startsWith("20250301t101500").hasSize(19);
        for (ArmKind arm : ArmKind.values()) {
            String id = RequestIds.of(run, arm, 1234);
            assertThat(id).matches("[A-Za-z0-9-]{1,63}");
            assertThat(RequestIds.parse(id)).contains(new RequestIds.Parts(run, arm, 1234));
        }
        assertThat(RequestIds.of(run, ArmKind.DIRECT, 1)).isNotEqualTo(RequestIds.of(run, ArmKind.SHAPER, 1));
    }

    @Test
    void idsThatAreNotTheLoadTestsAreNotParsed() {
        assertThat(RequestIds.parse("b4f0c2d1-uuid")).isEmpty();
        assertThat(RequestIds.parse("lt-run1-unknown-arm-3")).isEmpty();
        assertThat(RequestIds.parse("lt-run1-direct-")).isEmpty();
        assertThat(RequestIds.parse(null)).isEmpty();
        assertThatThrownBy(() -> RequestIds.of("Has-Dash", ArmKind.DIRECT, 0)).isInstanceOf(
                IllegalArgumentException.class);
    }
}
