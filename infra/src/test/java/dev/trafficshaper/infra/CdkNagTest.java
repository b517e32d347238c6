package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.cxapi.SynthesisMessage;

class CdkNagTest {

    static Stream<String> stages() {
        return Stream.of("dev", "prod");
    }

    private static SynthesizedStacks.Synthesized stage(String name) {
        return name.equals("dev") ? SynthesizedStacks.development() : SynthesizedStacks.production();
    }

    @ParameterizedTest
    @MethodSource("stages")
    void awsSolutionsChecksReportNoUnsuppressedError(String stage) {
        List<SynthesisMessage> errors = stage(stage).annotations()
                .findError("*", Match.stringLikeRegexp("AwsSolutions-.*"));
        assertThat(errors).extracting(CdkNagTest::describe).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("stages")
    void awsSolutionsChecksReportNoUnsuppressedWarning(String stage) {
        List<SynthesisMessage> warnings = stage(stage).annotations()
                .findWarning("*", Match.stringLikeRegexp("AwsSolutions-.*"));
        assertThat(warnings).extracting(CdkNagTest::describe).isEmpty();
    }

    private static String describe(SynthesisMessage message) {
        return message.getId() + ": " + message.getEntry().getData();
    }
}
