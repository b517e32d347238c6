package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.cxapi.SynthesisMessage;
import software.amazon.awscdk.cxapi.SynthesisMessageLevel;

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
        List<String> findings = stage(stage).messages().stream()
                .filter(message -> message.getLevel() != SynthesisMessageLevel.INFO)
                .map(CdkNagTest::describe)
                .filter(text -> text.contains("AwsSolutions-"))
                .toList();
        assertThat(findings).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("stages")
    void synthesisRaisesNoWarningOrError(String stage) {
        assertThat(stage(stage).messages())
                .filteredOn(message -> message.getLevel() != SynthesisMessageLevel.INFO)
                .extracting(CdkNagTest::describe)
                .isEmpty();
    }

    private static String describe(SynthesisMessage message) {
        return message.getLevel() + " " + message.getId() + ": " + message.getEntry().getData();
    }
}
