package dev.trafficshaper.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.testing.StateMachineHarness;
import dev.trafficshaper.testing.StateMachineHarness.Execution;
import dev.trafficshaper.testing.StateMachineHarness.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.InvalidTokenException;
import software.amazon.awssdk.services.sfn.model.TaskTimedOutException;

/**
 * {@code statemachines/request-lifecycle.asl.json} run by moto's interpreter, its two Lambda
 * functions played by stubs that record what they receive. Each test creates its own state machine.
 * The delivery is no step of it (the writer of the terminal state hands it off before it returns the
 * token), so the happy path is one state transition.
 */
class RequestLifecycleStateMachineIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration END = Duration.ofSeconds(30);
    private static final long WAIT_SECONDS = 10;

    private final BlockingQueue<JsonNode> admissions = new LinkedBlockingQueue<>();
    private final BlockingQueue<JsonNode> finalizations = new LinkedBlockingQueue<>();

    /** The Budget Manager keeps the token; the test plays the processor that returns it. */
    private final Function<JsonNode, JsonNode> budgetManager = payload -> {
        admissions.add(payload);
        return null;
    };

    private final Function<JsonNode, JsonNode> finalizer = payload -> {
        finalizations.add(payload);
        return JSON.createObjectNode().put("status", "FAILED");
    };

    private StateMachineHarness.Builder lifecycle() {
        return StateMachineHarness.builder()
                .function("BudgetManagerFunctionArn", budgetManager)
                .function("FinalizerFunctionArn", finalizer);
    }

    @Test
    void aRequestWhoseTokenComesBackSucceededEndsTheExecutionInOneTransition() throws Exception {
        StateMachineHarness harness = lifecycle().build();
        Execution execution = harness.start("happy", request("r-happy"));

        JsonNode admit = next(admissions);
        assertThat(admit.path("executionArn").asText()).isEqualTo(execution.arn());
        assertThat(admit.path("request")).isEqualTo(request("r-happy"));
        assertThat(Instant.parse(admit.path("startedAt").asText())).isBefore(Instant.now().plusSeconds(1));
        harness.sfn().sendTaskSuccess(b -> b.taskToken(admit.path("taskToken").asText())
                .output("{\"status\": \"SUCCEEDED\", \"outputTokens\": 42}"));

        Result result = execution.awaitEnd(END);
        assertThat(result.status()).as("%s", result).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(result.statesEntered()).containsExactly("Admit");
        assertThat(transitions(result)).as("state transitions billed for a request that succeeds").isEqualTo(1);
        System.out.println("state transitions, happy path: " + transitions(result));
        ObjectNode ended = request("r-happy");
        ended.putObject("outcome").put("status", "SUCCEEDED").put("outputTokens", 42);
        assertThat(result.output()).isEqualTo(ended);
        assertThat(finalizations).isEmpty();
    }

    @Test
    void aFailedTaskIsFinalizedWithItsErrorAndTheExecutionFails() throws Exception {
        StateMachineHarness harness = lifecycle().build();
        Execution execution = harness.start("rejected", request("r-rejected"));

        String token = next(admissions).path("taskToken").asText();
        harness.sfn().sendTaskFailure(b -> b.taskToken(token).error("ModelRejected").cause("ValidationException"));

        Result result = execution.awaitEnd(END);
        assertThat(result.status()).as("%s", result).isEqualTo(ExecutionStatus.FAILED);
        assertThat(result.error()).isEqualTo("RequestFailed");
        assertThat(result.statesEntered()).containsExactly("Admit", "Finalize", "Ended", "Failed");
        System.out.println("state transitions, failure path: " + transitions(result));
        JsonNode finalize = next(finalizations);
        JsonNode error = JSON.createObjectNode().put("Error", "ModelRejected").put("Cause", "ValidationException");
        assertThat(finalize.path("executionArn").asText()).isEqualTo(execution.arn());
        assertThat(finalize.path("error")).isEqualTo(error);
        assertThat(finalize.path("request").path("requestId").asText()).isEqualTo("r-rejected");
    }

    @Test
    void aSucceededRequestWhoseHandOffFailedIsFinalizedAndItsExecutionSucceeds() throws Exception {
        StateMachineHarness harness = StateMachineHarness.builder()
                .function("BudgetManagerFunctionArn", budgetManager)
                .function("FinalizerFunctionArn", payload -> {
                    finalizations.add(payload);
                    return JSON.createObjectNode().put("status", "SUCCEEDED");
                })
                .build();
        Execution execution = harness.start("undelivered", request("r-undelivered"));
        String token = next(admissions).path("taskToken").asText();
        harness.sfn().sendTaskFailure(b -> b.taskToken(token).error("DeliveryNotHandedOff")
                .cause("delivery queue unreachable"));

        Result result = execution.awaitEnd(END);

        assertThat(result.status()).as("%s", result).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(result.statesEntered()).containsExactly("Admit", "Finalize", "Ended", "Succeeded");
        assertThat(next(finalizations).path("error").path("Error").asText()).isEqualTo("DeliveryNotHandedOff");
    }

    @Test
    void aTokenNeverReturnedTimesOutAdmitAtTheRequestsOwnTimeoutAndTheFinalizerReceivesStatesTimeout()
            throws Exception {
        StateMachineHarness harness = lifecycle().build();
        ObjectNode shortLived = request("r-abandoned").put("admitTimeoutSeconds", 1);
        long started = System.nanoTime();
        Execution execution = harness.start("abandoned", shortLived);

        String token = next(admissions).path("taskToken").asText();
        Result result = execution.awaitEnd(END);
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(result.status()).as("%s", result).isEqualTo(ExecutionStatus.FAILED);
        assertThat(result.error()).isEqualTo("RequestFailed");
        assertThat(result.statesEntered()).containsExactly("Admit", "Finalize", "Ended", "Failed");
        assertThat(next(finalizations).path("error").path("Error").asText()).isEqualTo("States.Timeout");
        assertThat(took).as("the request's own 1 s, not another request's 300 s").isLessThan(Duration.ofSeconds(15));
        assertThatThrownBy(() -> harness.sfn().sendTaskSuccess(b -> b.taskToken(token).output("{}")))
                .as("a processor answering after the deadline (AWS: TaskTimedOut; moto, once the execution has"
                        + " ended, may say InvalidToken; the processor's callback takes both as 'no longer waits')")
                .isInstanceOfAny(TaskTimedOutException.class, InvalidTokenException.class);
    }

    @Test
    void aSecondAnswerOnTheSameTokenIsRefused() throws Exception {
        StateMachineHarness harness = lifecycle().build();
        Execution execution = harness.start("answered-twice", request("r-twice"));
        String token = next(admissions).path("taskToken").asText();
        harness.sfn().sendTaskSuccess(b -> b.taskToken(token).output("{\"status\": \"SUCCEEDED\"}"));

        Result result = execution.awaitEnd(END);

        assertThat(result.status()).as("%s", result).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(result.statesEntered()).containsExactly("Admit");
        // With Admit the only state, the task ends with the execution: AWS answers TaskTimedOut, moto
        // may say InvalidToken; StepFunctionsCallback takes both as "no longer waits".
        assertThatThrownBy(() -> harness.sfn().sendTaskSuccess(b -> b.taskToken(token).output("{}")))
                .isInstanceOfAny(TaskTimedOutException.class, InvalidTokenException.class);
        assertThatThrownBy(() -> harness.sfn().sendTaskFailure(b -> b.taskToken(token).error("Late")))
                .isInstanceOfAny(TaskTimedOutException.class, InvalidTokenException.class);
    }

    @Test
    void threeExecutionsOfTheSameStateMachineRunSideBySide() throws Exception {
        StateMachineHarness harness = lifecycle().build();
        List<Execution> executions = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            executions.add(harness.start("side-by-side-" + i, request("r-" + i)));
        }
        Map<String, String> tokens = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            JsonNode admit = next(admissions);
            tokens.put(admit.path("executionArn").asText(), admit.path("taskToken").asText());
        }
        assertThat(tokens).containsOnlyKeys(executions.stream().map(Execution::arn).collect(Collectors.toList()));

        for (Execution execution : executions) {
            harness.sfn().sendTaskSuccess(b -> b.taskToken(tokens.get(execution.arn())).output("{}"));
        }
        for (Execution execution : executions) {
            Result result = execution.awaitEnd(END);
            assertThat(result.status()).as("%s", result).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(result.statesEntered()).containsExactly("Admit");
        }
    }

    /** The transitions Step Functions bills: one per state entered. */
    private static long transitions(Result result) {
        return result.history().stream().filter(event -> event.stateEnteredEventDetails() != null).count();
    }

    private static ObjectNode request(String requestId) {
        return JSON.createObjectNode().put("requestId", requestId).put("modelId", "anthropic.claude-sonnet")
                .put("admitTimeoutSeconds", 300);
    }

    private static JsonNode next(BlockingQueue<JsonNode> invocations) throws InterruptedException {
        JsonNode payload = invocations.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(payload).as("an invocation within %d s", WAIT_SECONDS).isNotNull();
        return payload;
    }
}
