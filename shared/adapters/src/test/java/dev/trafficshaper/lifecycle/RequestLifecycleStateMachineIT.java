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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.TaskTimedOutException;

/**
 * {@code statemachines/request-lifecycle.asl.json} run by moto's interpreter, its three Lambda
 * functions played by stubs that record what they receive. Each test creates its own state machine.
 */
class RequestLifecycleStateMachineIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration END = Duration.ofSeconds(30);
    private static final long WAIT_SECONDS = 10;

    private final BlockingQueue<JsonNode> admissions = new LinkedBlockingQueue<>();
    private final BlockingQueue<JsonNode> finalizations = new LinkedBlockingQueue<>();
    private final BlockingQueue<JsonNode> deliveries = new LinkedBlockingQueue<>();

    /** The Budget Manager keeps the token; the test plays the processor that returns it. */
    private final Function<JsonNode, JsonNode> budgetManager = payload -> {
        admissions.add(payload);
        return null;
    };

    private final Function<JsonNode, JsonNode> finalizer = payload -> {
        finalizations.add(payload);
        return JSON.createObjectNode().put("status", "FAILED");
    };

    private final Function<JsonNode, JsonNode> notifier = payload -> {
        deliveries.add(payload);
        return null;
    };

    private StateMachineHarness.Builder lifecycle() {
        return StateMachineHarness.builder()
                .function("BudgetManagerFunctionArn", budgetManager)
                .function("FinalizerFunctionArn", finalizer)
                .function("NotifierFunctionArn", notifier);
    }

    @Test
    void aRequestWhoseTokenComesBackSucceededIsDeliveredAndTheExecutionSucceeds() throws Exception {
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
        assertThat(result.statesEntered()).containsExactly("Admit", "Deliver");
        ObjectNode delivered = request("r-happy");
        delivered.putObject("outcome").put("status", "SUCCEEDED").put("outputTokens", 42);
        assertThat(next(deliveries)).isEqualTo(JSON.createObjectNode()
                .put("executionArn", execution.arn()).set("request", delivered));
        assertThat(result.output()).as("Deliver keeps its input (ResultPath null)").isEqualTo(delivered);
        assertThat(finalizations).isEmpty();
    }

    @Test
    void aFailedTaskIsFinalizedWithItsErrorThenDeliveredAsAFailureAndTheExecutionFails() throws Exception {
        StateMachineHarness harness = lifecycle().build();
        Execution execution = harness.start("rejected", request("r-rejected"));

        String token = next(admissions).path("taskToken").asText();
        harness.sfn().sendTaskFailure(b -> b.taskToken(token).error("ModelRejected").cause("ValidationException"));

        Result result = execution.awaitEnd(END);
        assertThat(result.status()).as("%s", result).isEqualTo(ExecutionStatus.FAILED);
        assertThat(result.error()).isEqualTo("RequestFailed");
        assertThat(result.statesEntered()).containsExactly("Admit", "Finalize", "DeliverFailure", "Failed");
        JsonNode finalize = next(finalizations);
        JsonNode error = JSON.createObjectNode().put("Error", "ModelRejected").put("Cause", "ValidationException");
        assertThat(finalize.path("executionArn").asText()).isEqualTo(execution.arn());
        assertThat(finalize.path("error")).isEqualTo(error);
        assertThat(finalize.path("request").path("requestId").asText()).isEqualTo("r-rejected");
        JsonNode deliveredRequest = next(deliveries).path("request");
        assertThat(deliveredRequest.path("error")).isEqualTo(error);
        assertThat(deliveredRequest.path("outcome")).as("the Finalizer's result")
                .isEqualTo(JSON.createObjectNode().put("status", "FAILED"));
    }

    @Test
    void aTokenNeverReturnedTimesOutAdmitAndTheFinalizerReceivesStatesTimeout() throws Exception {
        StateMachineHarness harness = lifecycle().substitution("AdmitTimeoutSeconds", 1).build();
        Execution execution = harness.start("abandoned", request("r-abandoned"));

        String token = next(admissions).path("taskToken").asText();
        Result result = execution.awaitEnd(END);

        assertThat(result.status()).as("%s", result).isEqualTo(ExecutionStatus.FAILED);
        assertThat(result.error()).isEqualTo("RequestFailed");
        assertThat(result.statesEntered()).containsExactly("Admit", "Finalize", "DeliverFailure", "Failed");
        assertThat(next(finalizations).path("error").path("Error").asText()).isEqualTo("States.Timeout");
        assertThatThrownBy(() -> harness.sfn().sendTaskSuccess(b -> b.taskToken(token).output("{}")))
                .as("a processor answering after the deadline")
                .isInstanceOf(TaskTimedOutException.class);
    }

    @Test
    void aSecondAnswerOnTheSameTokenIsRefusedWithTaskTimedOutWhileTheExecutionRunsAndAfterItEnds()
            throws Exception {
        CountDownLatch delivering = new CountDownLatch(1);
        CountDownLatch mayDeliver = new CountDownLatch(1);
        StateMachineHarness harness = StateMachineHarness.builder()
                .function("BudgetManagerFunctionArn", budgetManager)
                .function("FinalizerFunctionArn", finalizer)
                .function("NotifierFunctionArn", payload -> {
                    delivering.countDown();
                    await(mayDeliver);
                    return notifier.apply(payload);
                })
                .build();
        Execution execution = harness.start("answered-twice", request("r-twice"));
        String token = next(admissions).path("taskToken").asText();
        harness.sfn().sendTaskSuccess(b -> b.taskToken(token).output("{\"status\": \"SUCCEEDED\"}"));
        await(delivering);

        assertThatThrownBy(() -> harness.sfn().sendTaskSuccess(b -> b.taskToken(token).output("{}")))
                .isInstanceOf(TaskTimedOutException.class);
        assertThatThrownBy(() -> harness.sfn().sendTaskFailure(b -> b.taskToken(token).error("Late")))
                .isInstanceOf(TaskTimedOutException.class);
        mayDeliver.countDown();
        Result result = execution.awaitEnd(END);
        assertThat(result.status()).as("%s", result).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(result.statesEntered()).containsExactly("Admit", "Deliver");
        assertThatThrownBy(() -> harness.sfn().sendTaskSuccess(b -> b.taskToken(token).output("{}")))
                .isInstanceOf(TaskTimedOutException.class);
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
            assertThat(result.statesEntered()).containsExactly("Admit", "Deliver");
        }
    }

    @Test
    void aDeliverThatKeepsFailingIsRetriedThenCaughtAndTheSucceededExecutionRecordsWhy() throws Exception {
        List<JsonNode> attempts = new java.util.concurrent.CopyOnWriteArrayList<>();
        StateMachineHarness harness = StateMachineHarness.builder()
                .function("BudgetManagerFunctionArn", budgetManager)
                .function("FinalizerFunctionArn", finalizer)
                .function("NotifierFunctionArn", payload -> {
                    attempts.add(payload);
                    throw new IllegalStateException("delivery queue unreachable");
                })
                .build();
        Execution execution = harness.start("undeliverable", request("r-undeliverable"));
        String token = next(admissions).path("taskToken").asText();
        harness.sfn().sendTaskSuccess(b -> b.taskToken(token).output("{\"status\": \"SUCCEEDED\"}"));

        Result result = execution.awaitEnd(END);

        assertThat(result.status()).as("the request ended before Deliver: %s", result)
                .isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(result.statesEntered()).containsExactly("Admit", "Deliver", "DeliveryNotSent");
        assertThat(attempts).as("the first call and two retries").hasSize(3);
        assertThat(result.output().path("outcome").path("status").asText()).isEqualTo("SUCCEEDED");
        assertThat(result.output().path("deliveryError").path("Error").asText())
                .isEqualTo("java.lang.IllegalStateException");
        assertThat(result.output().path("deliveryError").path("Cause").asText()).contains("delivery queue unreachable");
    }

    @Test
    void aFailedRequestWhoseDeliveryFailsStillEndsAsTheFailureTheFinalizerRecorded() throws Exception {
        StateMachineHarness harness = StateMachineHarness.builder()
                .function("BudgetManagerFunctionArn", budgetManager)
                .function("FinalizerFunctionArn", finalizer)
                .function("NotifierFunctionArn", payload -> {
                    throw new IllegalStateException("event bus refused");
                })
                .build();
        Execution execution = harness.start("failed-undeliverable", request("r-failed-undeliverable"));
        String token = next(admissions).path("taskToken").asText();
        harness.sfn().sendTaskFailure(b -> b.taskToken(token).error("ModelRejected").cause("ValidationException"));

        Result result = execution.awaitEnd(END);

        assertThat(result.status()).as("%s", result).isEqualTo(ExecutionStatus.FAILED);
        assertThat(result.error()).isEqualTo("RequestFailed");
        assertThat(result.statesEntered())
                .containsExactly("Admit", "Finalize", "DeliverFailure", "FailureNotDelivered", "Failed");
        assertThat(next(finalizations).path("request").path("requestId").asText()).isEqualTo("r-failed-undeliverable");
        assertThat(result.history()).as("the caught error is in the history")
                .anyMatch(event -> event.stateEnteredEventDetails() != null
                        && "FailureNotDelivered".equals(event.stateEnteredEventDetails().name())
                        && event.stateEnteredEventDetails().input().contains("event bus refused"));
    }

    private static ObjectNode request(String requestId) {
        return JSON.createObjectNode().put("requestId", requestId).put("modelId", "anthropic.claude-sonnet");
    }

    private static JsonNode next(BlockingQueue<JsonNode> invocations) throws InterruptedException {
        JsonNode payload = invocations.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(payload).as("an invocation within %d s", WAIT_SECONDS).isNotNull();
        return payload;
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("latch within %d s", WAIT_SECONDS).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
