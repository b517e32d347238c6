package dev.trafficshaper.functions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.trafficshaper.aws.dynamodb.TableKeys;
import dev.trafficshaper.functions.ChaosDeployment.Delivery;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.testing.chaos.ChaosBedrock;
import dev.trafficshaper.testing.chaos.ChaosTally;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The chaos suite on the real handlers and the real state machine (moto), Bedrock played by the
 * simulator behind a fault-injecting front. Each run breaks one seam of the lifecycle, heals it,
 * lets the production safety net bring every request to an end on the run's clock, and checks
 * every request with {@link ChaosTally}: one terminal state, at most one Bedrock call that may have
 * run, a terminal state within deadline + 2 minutes, the webhook delivered or its failure visible.
 * Each prints its line of counts ({@code chaos <scenario>: requests=...}).
 */
class LifecycleChaosIT {

    private static ChaosDeployment.Stack stack;
    private ChaosDeployment deployment;

    @BeforeAll
    static void startStack() {
        stack = new ChaosDeployment.Stack();
    }

    @AfterAll
    static void stopStack() {
        if (stack != null) {
            stack.close();
        }
    }

    @AfterEach
    void stopDeployment() throws InterruptedException {
        stack.bedrock.run(null, ChaosBedrock.Plan.NONE, Duration.ofSeconds(1));
        if (deployment != null) {
            deployment.close();
        }
    }

    private ChaosDeployment deploy(String scenario) {
        deployment = new ChaosDeployment(stack, ChaosTally.named(scenario));
        stack.bedrock.run(deployment.tally, ChaosBedrock.Plan.NONE, Duration.ofSeconds(1));
        return deployment;
    }

    private static int index(String requestId) {
        return Integer.parseInt(requestId.substring(requestId.lastIndexOf('-') + 1));
    }

    @Test
    void aDrainerKilledMidBatchLeavesNoAdmissionBehind() {
        ChaosDeployment d = deploy("drainer-killed-mid-batch");
        d.wakeDrainers(false);
        List<String> ids = d.submitAll("killed-drainer", 8, 300);
        assertThat(d.awaitAll(ids, r -> r.state() == RequestState.QUEUED, Duration.ofSeconds(60))).isTrue();
        AtomicInteger dispatched = new AtomicInteger();
        d.plan((id, nth) -> dispatched.incrementAndGet() == 4 ? Delivery.KILL_DRAINER : Delivery.ONCE);

        d.drain();
        await().atMost(Duration.ofSeconds(30)).until(() -> d.drainersKilled.get() == 1);
        d.bringToAnEnd(ids);

        d.verify(ids);
        assertThat(stack.bedrock.unmarkedCalls()).isZero();
    }

    @Test
    void aProcessorKilledBetweenTheAnswerAndTheStatusWriteIsFinishedFromTheAnswer() {
        ChaosDeployment d = deploy("processor-killed-after-answer");
        Set<String> killed = ConcurrentHashMap.newKeySet();
        d.dynamoDb.killAt(d.tally, request -> request instanceof UpdateItemRequest update
                && succeededWrite(update).filter(id -> index(id) % 2 == 0 && killed.add(id)).isPresent());
        List<String> ids = d.submitAll("killed-processor", 8, 120);

        // The answer is recorded just before the kill: wait for the kill itself, or the fault is healed too soon.
        assertThat(d.awaitAll(ids, r -> r.isTerminal() || r.isAnswered() && killed.contains(r.requestId()),
                Duration.ofSeconds(60))).isTrue();
        d.bringToAnEnd(ids);

        d.verify(ids);
        assertThat(d.processorsKilled).hasValue(4);
        for (String id : killed) {
            RequestRecord record = d.record(id).orElseThrow();
            assertThat(record.state()).as(id).isEqualTo(RequestState.SUCCEEDED);
            assertThat(d.tally.calls(id)).as(id).isEqualTo(1);
        }
    }

    @Test
    void droppedAndDuplicatedDeliveriesCallBedrockOnceEach() {
        ChaosDeployment d = deploy("deliveries-dropped-and-duplicated");
        d.plan((id, nth) -> nth > 1 ? Delivery.ONCE : switch (index(id) % 3) {
            case 0 -> Delivery.DROP;
            case 1 -> Delivery.TWICE;
            default -> Delivery.ONCE;
        });
        List<String> ids = d.submitAll("deliveries", 9, 300);

        d.bringToAnEnd(ids);

        d.verify(ids);
        for (String id : ids) {
            assertThat(d.record(id).orElseThrow().state()).as(id).isEqualTo(RequestState.SUCCEEDED);
            assertThat(d.tally.calls(id)).as(id).isEqualTo(1);
        }
    }

    @Test
    void aLeaseThatExpiresWhileItsHolderIsPausedPassesToOneSuccessor() {
        ChaosDeployment d = deploy("lease-expired-while-paused");
        d.wakeDrainers(false);
        List<String> ids = d.submitAll("paused", 6, 300);
        assertThat(d.awaitAll(ids, r -> r.state() == RequestState.QUEUED, Duration.ofSeconds(60))).isTrue();
        AtomicBoolean first = new AtomicBoolean(true);
        d.plan((id, nth) -> first.compareAndSet(true, false) ? Delivery.PAUSE : Delivery.ONCE);

        d.drain();
        d.awaitPaused();
        d.clock.advance(Duration.ofSeconds(35));
        d.wakeDrainers(true);
        d.drain();
        boolean successorFinished = d.awaitAll(ids, RequestRecord::isTerminal, Duration.ofSeconds(60));
        d.resumePaused();
        d.bringToAnEnd(ids);

        assertThat(successorFinished).as("the successor ended every request while the old holder was paused").isTrue();
        d.verify(ids);
    }

    @Test
    void aBudgetManagerThrottledPastItsRetriesEndsTheRequestAbortedNotUnknown() {
        ChaosDeployment d = deploy("budget-manager-throttled");
        d.budgetManagerFails(id -> index(id) % 3 == 0);
        List<String> ids = d.submitAll("budget", 6, 120);

        assertThat(d.awaitAll(ids, RequestRecord::isTerminal, Duration.ofSeconds(60))).isTrue();
        d.bringToAnEnd(ids);

        d.verify(ids);
        for (String id : ids) {
            RequestRecord record = d.record(id).orElseThrow();
            if (index(id) % 3 == 0) {
                assertThat(record.state()).as(id).isEqualTo(RequestState.FAILED);
                assertThat(record.failureReason().name()).as(id).isEqualTo("ABORTED");
                assertThat(d.tally.calls(id)).as(id).isZero();
            } else {
                assertThat(record.state()).as(id).isEqualTo(RequestState.SUCCEEDED);
            }
        }
    }

    @Test
    void bedrockServerErrorsAreRetriedButTimeoutsAndBrokenConnectionsAreNeverSentAgain() {
        ChaosDeployment d = deploy("bedrock-5xx-timeouts-broken");
        stack.bedrock.run(d.tally, (id, attempt) -> switch (index(id) % 5) {
            case 0 -> attempt <= 2 ? ChaosBedrock.Fault.SERVER_ERROR : ChaosBedrock.Fault.NONE;
            case 1 -> attempt == 1 ? ChaosBedrock.Fault.TIMEOUT : ChaosBedrock.Fault.NONE;
            case 2 -> attempt == 1 ? ChaosBedrock.Fault.BROKEN_CONNECTION : ChaosBedrock.Fault.NONE;
            default -> ChaosBedrock.Fault.NONE;
        }, Duration.ofSeconds(26));
        // A held call waits for its deadline: those get a short one (long enough to be admitted before it
        // passes on a loaded machine, shorter than the hold), and go last so that they are still open when
        // admitted; the others have time for their returns to the queue.
        List<String> ids = d.submitAll("bedrock-faults", List.of(0, 2, 3, 4, 5, 7, 8, 9, 1, 6),
                i -> i % 5 == 1 ? 16 : 60);

        assertThat(d.awaitAll(ids, RequestRecord::isTerminal, Duration.ofSeconds(75))).isTrue();
        d.bringToAnEnd(ids);

        d.verify(ids);
        for (String id : ids) {
            RequestRecord record = d.record(id).orElseThrow();
            switch (index(id) % 5) {
                case 0 -> {
                    assertThat(record.state()).as(id).isEqualTo(RequestState.SUCCEEDED);
                    assertThat(d.tally.calls(id)).as(id).isEqualTo(3);
                }
                case 1, 2 -> {
                    assertThat(record.state()).as(id).isEqualTo(RequestState.FAILED);
                    assertThat(record.failureReason().name()).as(id).isEqualTo("MODEL_TIMEOUT");
                    assertThat(d.tally.calls(id)).as(id).isEqualTo(1);
                }
                default -> assertThat(record.state()).as(id).isEqualTo(RequestState.SUCCEEDED);
            }
        }
    }

    @Test
    void dynamoDbThrottlingLosesNothingAndSendsNothingTwice() {
        ChaosDeployment d = deploy("dynamodb-throttled");
        d.dynamoDb.throttle(d.tally, 0.2, 0.03);
        List<String> ids = d.submitAll("throttled-table", 10, 120);

        d.awaitAll(ids, RequestRecord::isTerminal, Duration.ofSeconds(30));
        d.bringToAnEnd(ids);

        d.verify(ids);
        assertThat(d.dynamoDb.injected()).isPositive();
    }

    /** The request id of an UpdateItem that writes SUCCEEDED on a status item. */
    private static java.util.Optional<String> succeededWrite(UpdateItemRequest update) {
        Map<String, AttributeValue> values = update.expressionAttributeValues();
        AttributeValue state = values == null ? null : values.get(":state");
        AttributeValue pk = update.key().get(TableKeys.PK);
        if (state == null || pk == null || !"SUCCEEDED".equals(state.s())) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(pk.s().substring(TableKeys.requestPk("").length()));
    }
}
