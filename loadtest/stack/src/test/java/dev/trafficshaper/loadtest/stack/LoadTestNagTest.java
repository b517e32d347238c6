package dev.trafficshaper.loadtest.stack;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.s3.Bucket;

class LoadTestNagTest {

    @Test
    void awsSolutionsChecksLeaveNoUnsuppressedFindingAndSynthesisNoWarning() {
        assertThat(SynthesizedLoadTestStack.get().findings()).isEmpty();
    }

    @Test
    void findingsOfTheChecksReachThisTest() {
        App app = new App();
        Stack stack = new Stack(app, "Unprotected");
        new Bucket(stack, "Plain");
        Aspects.of(app).add(new AwsSolutionsChecks());
        assertThat(SynthesizedLoadTestStack.findings(app.synth(), "Unprotected"))
                .anyMatch(text -> text.contains("AwsSolutions-S10"));
    }
}
