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
    private static final Set<String> FILLED = Set.of("Partition", "BudgetManagerFunctionArn", "FinalizerFunctionArn");

    @Test
    void theRepositoryDefinitionPasses() {
        String definition = RequestLifecycle.readDefinition(DIRECTORY);
        assertThatCode(() -> RequestLifecycle.checkDefinition(FILE, definition, FILLED)).doesNotThrowAnyException();
    }

    @Test
    void admitWaitsAtMostTheLongestDeadlinePlusTheGrace() {
        assertThat(RequestLifecycle.admitTimeoutSeconds(3600, "m")).isEqualTo(3600 + RequestLifecycle.ADMIT_GRACE_SECONDS);
        assertThat(RequestLifecycle.ADMIT_GRACE_SECONDS).as("covers the sweeper's 90 s bound").isGreaterThan(90);
    }

    @Test
    void aFixedTimeoutIsRefusedNamingTheFix() {
        String definition = RequestLifecycle.readDefinition(DIRECTORY)
                .replace("\"TimeoutSecondsPath\": \"$.admitTimeoutSeconds\",", "\"TimeoutSeconds\": 3900,");
        assertThatThrownBy(() -> RequestLifecycle.checkDefinition(FILE, definition, FILLED))
                .isInstanceOf(InvalidDeploymentException.class)
                .hasMessageContaining("state Admit waits for its task token a fixed TimeoutSeconds")
                .hasMessageContaining("use \"TimeoutSecondsPath\": \"$.admitTimeoutSeconds\", which Submit sets to"
                        + " the request's own deadline plus " + RequestLifecycle.ADMIT_GRACE_SECONDS + " s");
    }

    @Test
    void aTimeoutReadFromAnotherPathIsRefused() {
        String definition = RequestLifecycle.readDefinition(DIRECTORY)
                .replace("\"$.admitTimeoutSeconds\"", "\"$.timeout\"");
        assertThatThrownBy(() -> RequestLifecycle.checkDefinition(FILE, definition, FILLED))
                .hasMessageContaining("state Admit waits for its task token with its timeout read from $.timeout,"
                        + " which Submit does not set");
    }

    @Test
    void aTaskWaitingForItsTokenWithoutTimeoutIsRefused() {
        String definition = RequestLifecycle.readDefinition(DIRECTORY)
                .replace("\"TimeoutSecondsPath\": \"$.admitTimeoutSeconds\",", "");
        assertThatThrownBy(() -> RequestLifecycle.checkDefinition(FILE, definition, FILLED))
                .hasMessageContaining("state Admit waits for its task token without a timeout");
    }

    @Test
    void aPlaceholderTheStackDoesNotFillIsRefused() {
        String definition = RequestLifecycle.readDefinition(DIRECTORY).replace("${FinalizerFunctionArn}",
                "${FinaliserFunctionArn}");
        assertThatThrownBy(() -> RequestLifecycle.checkDefinition(FILE, definition, FILLED))
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
