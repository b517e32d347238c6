package dev.trafficshaper.infra.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.infra.config.InvalidDeploymentException;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checks the stack runs on the state machine definition before it synthesizes anything. */
class LifecycleDefinitionTest {

    private static final Path DIRECTORY = Path.of("..", "statemachines");
    private static final Path FILE = DIRECTORY.resolve(RequestLifecycle.DEFINITION_FILE);
    private static final Set<String> FILLED = Set.of("Partition", "BudgetManagerFunctionArn", "FinalizerFunctionArn",
            "NotifierFunctionArn", "AdmitTimeoutSeconds");

    @Test
    void theRepositoryDefinitionPasses() {
        String definition = RequestLifecycle.readDefinition(DIRECTORY);
        assertThatCode(() -> RequestLifecycle.checkDefinition(FILE, definition, FILLED, 3900, 3600, "claude-sonnet"))
                .doesNotThrowAnyException();
    }

    @Test
    void admitWaitsLongerThanTheLongestDeadline() {
        assertThat(RequestLifecycle.admitTimeoutSeconds(3600, "m")).isEqualTo(3600 + RequestLifecycle.ADMIT_GRACE_SECONDS);
    }

    @Test
    void aTimeoutNoLongerThanTheLongestDeadlineIsRefusedNamingTheModelAndTheFix() {
        String definition = RequestLifecycle.readDefinition(DIRECTORY).replace("${AdmitTimeoutSeconds}", "900");
        assertThatThrownBy(() -> RequestLifecycle.checkDefinition(FILE, definition, FILLED, 3900, 3600, "claude-sonnet"))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageContaining("state Admit waits for its task token at most 900 s")
                .hasMessageContaining("model claude-sonnet allows deadlines up to 3600 s")
                .hasMessageContaining("use \"TimeoutSeconds\": ${AdmitTimeoutSeconds}, which the stack sets to 3900 s");
    }

    @Test
    void aTaskWaitingForItsTokenWithoutTimeoutIsRefused() {
        String definition = RequestLifecycle.readDefinition(DIRECTORY)
                .replace("\"TimeoutSeconds\": ${AdmitTimeoutSeconds},", "");
        assertThatThrownBy(() -> RequestLifecycle.checkDefinition(FILE, definition, FILLED, 3900, 3600, "m"))
                .hasMessageContaining("state Admit waits for its task token without a TimeoutSeconds");
    }

    @Test
    void aPlaceholderTheStackDoesNotFillIsRefused() {
        String definition = RequestLifecycle.readDefinition(DIRECTORY).replace("${FinalizerFunctionArn}",
                "${FinaliserFunctionArn}");
        assertThatThrownBy(() -> RequestLifecycle.checkDefinition(FILE, definition, FILLED, 3900, 3600, "m"))
                .hasMessageContaining("${FinaliserFunctionArn} is not filled in by the stack");
    }

    @Test
    void aDeadlineBeyondWhatAStandardExecutionCanWaitIsRefused() {
        assertThatThrownBy(() -> RequestLifecycle.admitTimeoutSeconds(365L * 24 * 3600, "archive"))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageContaining("model archive: maxDeadlineSeconds 31536000 is too long")
                .hasMessageContaining("one year");
    }
}
