package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.s3.Bucket;

class CdkNagTest {

    static Stream<String> stages() {
        return Stream.of("dev", "prod");
    }

    private static SynthesizedStacks.Synthesized stage(String name) {
        return name.equals("dev") ? SynthesizedStacks.development() : SynthesizedStacks.production();
    }

    @ParameterizedTest
    @MethodSource("stages")
    void awsSolutionsChecksLeaveNoUnsuppressedFinding(String stage) {
        assertThat(stage(stage).findings())
                .filteredOn(finding -> finding.text().contains("AwsSolutions-"))
                .extracting(SynthesizedStacks.Finding::toString)
                .isEmpty();
    }

    @Test
    void findingsOfTheChecksReachTheseTests() {
        App app = new App();
        Stack stack = new Stack(app, "Unprotected");
        new Bucket(stack, "Plain");
        Aspects.of(app).add(new AwsSolutionsChecks());
        assertThat(SynthesizedStacks.findings(app.synth(), "Unprotected"))
                .extracting(SynthesizedStacks.Finding::text)
                .anyMatch(text -> text.contains("AwsSolutions-S10"));
    }

    @ParameterizedTest
    @MethodSource("stages")
    void synthesisRaisesNoWarningOrError(String stage) {
        assertThat(stage(stage).findings()).extracting(SynthesizedStacks.Finding::toString).isEmpty();
    }
}
