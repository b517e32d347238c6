package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.RejectionKind;
import dev.trafficshaper.bedrock.TransientKind;
import dev.trafficshaper.lifecycle.InvocationService.Call;
import dev.trafficshaper.lifecycle.InvocationService.NoCall;
import dev.trafficshaper.lifecycle.InvocationService.Result;
import dev.trafficshaper.pacing.PacerSettings;
import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequeueReason;
import dev.trafficshaper.usage.UsageTotals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class InvocationServiceTest {

    private static final long DEADLINE = T0 + 60_000;

    private final ShaperFixture shaper = new ShaperFixture();
    private final FakeModelInvoker bedrock = new FakeModelInvoker();
    private final InvocationService invocations = shaper.invocations(bedrock);

    @Test
    void storesTheResultSettlesTheUsageWritesSucceededThenResumesTheWorkflow() throws Exception {
        admitted("r1", DEADLINE);
        shaper.clock.advance(100);
        List<RequestState> stateWhenResumed = new ArrayList<>();
        InvocationService service = InvocationService.create(shaper.catalog, shaper.requests, shaper.queue,
                shaper.payloads, shaper.usage, bedrock,
                terminal -> stateWhenResumed.add(shaper.record(terminal.requestId()).state()),
                shaper.wake, shaper.metrics, shaper.clock);

        assertThat(service.process("r1")).isEqualTo(Result.SUCCEEDED);

        RequestRecord done = shaper.record("r1");
        assertThat(done.state()).isEqualTo(RequestState.SUCCEEDED);
        assertThat(done.httpStatus()).isEqualTo(200);
        assertThat(done.actualUsage()).isEqualTo(FakeModelInvoker.USAGE);
        assertThat(done.startedAtMillis()).isEqualTo(T0 + 100);
        assertThat(done.resultRef().kind()).isEqualTo(PayloadKind.RESULT);
        String response = shaper.payloads.get(done.resultRef(), shaper.now()).orElseThrow().text();
        ObjectMapper json = new ObjectMapper();
        assertThat(json.readTree(response)).isEqualTo(json.readTree(FakeModelInvoker.success("answer to r1")
                .responseJson()));
        UsageTotals totals = shaper.usage.totals(MODEL, T0 - 60_000, T0 + 120_000, shaper.now());
        assertThat(totals.settlements()).isEqualTo(1);
        assertThat(totals.usage()).isEqualTo(FakeModelInvoker.USAGE);
        assertThat(totals.charge()).isEqualTo(Charge.settlement(shaper.catalog.require(MODEL).quota(),
                FakeModelInvoker.USAGE));
        assertThat(stateWhenResumed).as("written before the workflow hears of it")
                .containsExactly(RequestState.SUCCEEDED);
        assertThat(shaper.metrics.events).containsExactly("settled nova-lite", "outcome r1 SUCCEEDED");
    }

    @Test
    void theCallReachedBedrockByItsAnswerLessTheLatencyBedrockReports() {
        admitted("r1", DEADLINE);
        admitted("r2", DEADLINE);
        BedrockOutcome.Succeeded plain = FakeModelInvoker.success("answer");
        bedrock.answer("r1", new BedrockOutcome.Succeeded(plain.usage(), plain.stopReason(), plain.responseJson(), 1_200));
        bedrock.answer("r2", plain);
        bedrock.duringCall(id -> shaper.clock.advance(1_500)); // the call takes 1.5 s

        InvocationService.Ended reported = invocations.processToEnd("r1");
        InvocationService.Ended silent = invocations.processToEnd("r2");

        assertThat(reported.reachedByMillis()).as("answered at +1.5 s, Bedrock worked 1.2 s").isEqualTo(T0 + 300);
        assertThat(silent.reachedByMillis()).as("no latency said: by its answer").isEqualTo(T0 + 3_000);
    }

    @Test
    void callsTheConfiguredModelWithTheStoredBodyAndATimeoutInsideTheDeadline() {
        admitted("r1", DEADLINE);
        shaper.clock.advance(100);

        invocations.process("r1");

        FakeModelInvoker.Call call = bedrock.calls().get(0);
        assertThat(call.modelId()).isEqualTo("amazon.nova-lite-v1:0");
        assertThat(call.body()).isEqualTo(ShaperFixture.converse("r1").text());
        assertThat(call.timeout()).isEqualTo(Duration.ofMillis(59_900));
    }

    @Test
    void boundsTheCallTimeoutByTheLongestCallAndByOneSecond() {
        admitted("long", T0 + 3_600_000);
        admitted("short", T0 + 1_500);
        shaper.clock.advance(1_000);

        invocations.process("long");
        invocations.process("short");

        assertThat(bedrock.calls()).extracting(FakeModelInvoker.Call::timeout)
                .containsExactly(InvocationService.MAX_CALL, Duration.ofSeconds(1));
    }

    @Test
    void aRepeatedDeliveryCallsBedrockOnlyOnce() {
        admitted("r1", DEADLINE);

        assertThat(invocations.process("r1")).isEqualTo(Result.SUCCEEDED);
        assertThat(invocations.process("r1")).isEqualTo(Result.DUPLICATE);

        assertThat(bedrock.calls()).hasSize(1);
        assertThat(shaper.resumed).hasSize(1);
        assertThat(shaper.usage.totals(MODEL, T0 - 60_000, T0 + 60_000, shaper.now()).settlements()).isEqualTo(1);
    }

    @Test
    void aDeliveryThatFindsTheRequestClaimedDoesNothing() {
        admitted("r1", DEADLINE);
        bedrock.duringCall(id -> assertThat(invocations.process(id)).isEqualTo(Result.DUPLICATE));

        assertThat(invocations.process("r1")).isEqualTo(Result.SUCCEEDED);

        assertThat(bedrock.calls()).hasSize(1);
    }

    @Test
    void anUnknownRequestIsReportedAndNothingIsCalled() {
        assertThat(invocations.process("nobody")).isEqualTo(Result.UNKNOWN);
        assertThat(bedrock.calls()).isEmpty();
    }

    @Test
    void aThrottledRequestGoesBackToTheQueueAtItsPlaceAndWakesTheDrainer() {
        RequestRecord queued = shaper.enqueue("r1", MODEL, DEADLINE);
        shaper.admit("r1");
        shaper.wakes.clear();
        bedrock.answer("r1", new BedrockOutcome.Throttled("Too many tokens"));

        assertThat(invocations.process("r1")).isEqualTo(Result.REQUEUED);

        RequestRecord back = shaper.record("r1");
        assertThat(back.state()).isEqualTo(RequestState.QUEUED);
        assertThat(back.requeues()).isEqualTo(1);
        assertThat(back.requeueReason()).isEqualTo(RequeueReason.THROTTLED);
        assertThat(back.detail()).isEqualTo("throttled by Bedrock: Too many tokens");
        assertThat(back.enqueuedAtMillis()).isEqualTo(queued.enqueuedAtMillis());
        assertThat(shaper.queue.heads(MODEL, 10, shaper.now()).work())
                .extracting(item -> item.requestId() + "@" + item.enqueuedAtMillis()).containsExactly("r1@" + T0);
        assertThat(shaper.wakes).containsExactly(MODEL);
        assertThat(shaper.resumed).isEmpty();
        assertThat(shaper.metrics.events).containsExactly("throttled nova-lite", "requeued nova-lite");
    }

    @Test
    void aRequestThrottledAgainAndAgainGoesBackEachTimeAndIsNeverGivenUpBeforeItsDeadline() {
        shaper.enqueue("r1", MODEL, DEADLINE);
        BedrockOutcome throttled = new BedrockOutcome.Throttled("Too many tokens");
        bedrock.answer("r1", throttled, throttled, throttled, throttled, throttled, throttled,
                FakeModelInvoker.success("at last"));
        List<Result> results = new ArrayList<>();

        for (int attempt = 0; attempt < 7; attempt++) {
            shaper.admit("r1");
            results.add(invocations.process("r1"));
            shaper.clock.advance(1_000);
        }

        assertThat(results).containsExactly(Result.REQUEUED, Result.REQUEUED, Result.REQUEUED, Result.REQUEUED,
                Result.REQUEUED, Result.REQUEUED, Result.SUCCEEDED);
        RequestRecord done = shaper.record("r1");
        assertThat(done.state()).isEqualTo(RequestState.SUCCEEDED);
        assertThat(done.requeues()).as("each throttle is counted, none is held against the request").isEqualTo(6);
        assertThat(bedrock.calls()).hasSize(7);
    }

    @Test
    void aThrottleAnsweredAfterTheDeadlineIsAnExpiredDeadlineNotARequeue() {
        admitted("r1", DEADLINE);
        bedrock.answer("r1", new BedrockOutcome.Throttled("late"));
        bedrock.duringCall(id -> shaper.clock.set(DEADLINE));

        assertThat(invocations.process("r1")).isEqualTo(Result.FAILED);

        RequestRecord failed = shaper.record("r1");
        assertThat(failed.failureReason()).isEqualTo(FailureReason.DEADLINE_EXPIRED);
        assertThat(failed.httpStatus()).isEqualTo(504);
        assertThat(failed.requeues()).isZero();
        assertThat(shaper.queue.depth(MODEL, shaper.now())).isZero();
    }

    @Test
    void aTransientFailureGoesBackToTheQueueWithoutCountingAsAThrottle() {
        admitted("r1", DEADLINE);
        shaper.wakes.clear();
        bedrock.answer("r1", new BedrockOutcome.Transient(TransientKind.SERVICE_UNAVAILABLE, 503, "try later"));

        assertThat(invocations.process("r1")).isEqualTo(Result.REQUEUED);

        RequestRecord back = shaper.record("r1");
        assertThat(back.state()).isEqualTo(RequestState.QUEUED);
        assertThat(back.requeues()).as("a failure that proves nothing ran spends no requeue").isZero();
        assertThat(back.requeueReason()).isEqualTo(RequeueReason.TRANSIENT);
        assertThat(back.detail()).isEqualTo("Bedrock did nothing: try later");
        assertThat(shaper.wakes).containsExactly(MODEL);
        assertThat(shaper.resumed).isEmpty();
        assertThat(shaper.metrics.events).containsExactly("requeued nova-lite");
    }

    @Test
    void aTransientFailureThatKeepsRecurringGoesBackUntilTheDeadlineAndThenExpires() {
        shaper.enqueue("r1", MODEL, DEADLINE);
        BedrockOutcome unavailable = new BedrockOutcome.Transient(TransientKind.SERVICE_UNAVAILABLE, 503, "try later");
        bedrock.answer("r1", unavailable, unavailable, unavailable, unavailable, unavailable);
        List<Result> results = new ArrayList<>();

        for (int attempt = 0; attempt < 5; attempt++) {
            shaper.admit("r1");
            if (attempt == 4) {
                bedrock.duringCall(id -> shaper.clock.set(DEADLINE));
            }
            results.add(invocations.process("r1"));
            shaper.clock.advance(1_000);
        }

        assertThat(results).containsExactly(Result.REQUEUED, Result.REQUEUED, Result.REQUEUED, Result.REQUEUED,
                Result.FAILED);
        RequestRecord failed = shaper.record("r1");
        assertThat(failed.failureReason()).isEqualTo(FailureReason.DEADLINE_EXPIRED);
        assertThat(failed.httpStatus()).isEqualTo(504);
        assertThat(failed.detail()).isEqualTo("Bedrock answered 503: try later");
        assertThat(failed.requeues()).isZero();
        assertThat(shaper.resumed).extracting(RequestRecord::state).containsExactly(RequestState.FAILED);
    }

    @Test
    void aCallThatMayHaveRunEndsAsAModelTimeoutAndIsNeverSentAgain() {
        for (BedrockOutcome mayHaveRun : List.of(
                new BedrockOutcome.Transient(TransientKind.CLIENT_TIMEOUT, 0, "no answer"),
                new BedrockOutcome.Transient(TransientKind.CONNECTION_BROKEN, 0, "reset mid-call"),
                new BedrockOutcome.Transient(TransientKind.MODEL_TIMEOUT, 408, "too slow"),
                new BedrockOutcome.Transient(TransientKind.MODEL_ERROR, 424, "model failed"))) {
            String id = "r-" + ((BedrockOutcome.Transient) mayHaveRun).kind();
            admitted(id, DEADLINE);
            bedrock.answer(id, mayHaveRun);

            assertThat(invocations.process(id)).as(id).isEqualTo(Result.FAILED);

            RequestRecord failed = shaper.record(id);
            assertThat(failed.failureReason()).as(id).isEqualTo(FailureReason.MODEL_TIMEOUT);
            assertThat(failed.httpStatus()).as(id).isEqualTo(504);
            assertThat(failed.detail()).as(id).startsWith("the call may have run");
            assertThat(bedrock.callsFor(id)).as(id).isEqualTo(1);
        }
    }

    @Test
    void aConnectionNeverMadeGoesBackToTheQueue() {
        admitted("r1", DEADLINE);
        bedrock.answer("r1", new BedrockOutcome.Transient(TransientKind.CONNECTION_REFUSED, 0, "refused"));

        assertThat(invocations.process("r1")).isEqualTo(Result.REQUEUED);
        assertThat(shaper.record("r1").requeueReason()).isEqualTo(RequeueReason.TRANSIENT);
    }

    @Test
    void aClientTimeoutAfterTheDeadlineIsStillAModelTimeout() {
        admitted("r1", DEADLINE);
        bedrock.answer("r1", new BedrockOutcome.Transient(TransientKind.CLIENT_TIMEOUT, 0, "no answer"));
        bedrock.duringCall(id -> shaper.clock.set(DEADLINE + 1));

        assertThat(invocations.process("r1")).isEqualTo(Result.FAILED);

        RequestRecord failed = shaper.record("r1");
        assertThat(failed.failureReason()).isEqualTo(FailureReason.MODEL_TIMEOUT);
        assertThat(failed.detail()).contains("Bedrock answered nothing");
    }

    @Test
    void aValidationErrorIsTheCallersInvalidRequest() {
        admitted("r1", DEADLINE);
        bedrock.answer("r1", new BedrockOutcome.Rejected(RejectionKind.VALIDATION, 400, "bad role"));

        assertThat(invocations.process("r1")).isEqualTo(Result.FAILED);

        RequestRecord failed = shaper.record("r1");
        assertThat(failed.failureReason()).isEqualTo(FailureReason.INVALID_REQUEST);
        assertThat(failed.httpStatus()).isEqualTo(400);
        assertThat(bedrock.calls()).hasSize(1);
    }

    @Test
    void aDeploymentFaultIsADependencyError() {
        admitted("r1", DEADLINE);
        bedrock.answer("r1", new BedrockOutcome.Rejected(RejectionKind.ACCESS_DENIED, 403, "no"));

        invocations.process("r1");

        assertThat(shaper.record("r1").httpStatus()).isEqualTo(503);
    }

    @Test
    void aRequestAdmittedButDeliveredAfterItsDeadlineExpiresWithoutABedrockCall() {
        admitted("r1", DEADLINE);
        shaper.clock.set(DEADLINE);

        assertThat(invocations.process("r1")).isEqualTo(Result.EXPIRED);

        RequestRecord expired = shaper.record("r1");
        assertThat(expired.state()).isEqualTo(RequestState.EXPIRED);
        assertThat(expired.httpStatus()).isEqualTo(504);
        assertThat(bedrock.calls()).isEmpty();
        assertThat(shaper.resumed).extracting(RequestRecord::state).containsExactly(RequestState.EXPIRED);
    }

    @Test
    void aMissingStoredBodyFailsAsADependencyErrorWithoutABedrockCall() {
        PayloadRef nowhere = new PayloadRef(PayloadRef.Location.OBJECT, "r1", PayloadKind.REQUEST, "a".repeat(64),
                10, DEADLINE + 3_600_000);
        shaper.enqueue(shaper.newRequest("r1", MODEL, DEADLINE).payloadRef(nowhere).build());
        shaper.admit("r1");

        assertThat(invocations.process("r1")).isEqualTo(Result.FAILED);

        assertThat(shaper.record("r1").failureReason()).isEqualTo(FailureReason.DEPENDENCY_ERROR);
        assertThat(bedrock.calls()).isEmpty();
    }

    @Test
    void whenTheFinalizerEndsTheRequestDuringTheCallItsOutcomeStands() {
        admitted("r1", DEADLINE);
        bedrock.duringCall(id -> {
            shaper.clock.set(DEADLINE + 5_000);
            shaper.finalizer().finalizeRequest(id, ShaperFixture.TENANT, "States.Timeout", "deadline", shaper.now());
        });

        assertThat(invocations.process("r1")).isEqualTo(Result.DUPLICATE);

        RequestRecord record = shaper.record("r1");
        assertThat(record.state()).isEqualTo(RequestState.FAILED);
        assertThat(record.failureReason()).isEqualTo(FailureReason.DEADLINE_EXPIRED);
        assertThat(record.resultRef()).isNull();
        assertThat(shaper.resumed).extracting(RequestRecord::state).containsExactly(RequestState.FAILED);
        assertThat(shaper.usage.totals(MODEL, T0 - 60_000, T0 + 120_000, shaper.now()).settlements())
                .as("Bedrock charged the call, so its usage is still settled").isEqualTo(1);
    }

    // ---- begin and complete, the two halves of process()

    @Test
    void beginClaimsTheRequestAndHandsOverWhatTheCallNeedsWithoutCallingBedrock() {
        admitted("r1", DEADLINE);
        shaper.clock.advance(100);

        InvocationService.Start start = invocations.begin("r1");

        Call call = (Call) start;
        assertThat(call.invoking().state()).isEqualTo(RequestState.INVOKING);
        assertThat(call.invoking().startedAtMillis()).isEqualTo(T0 + 100);
        assertThat(shaper.record("r1").state()).isEqualTo(RequestState.INVOKING);
        assertThat(call.model().modelId()).isEqualTo("amazon.nova-lite-v1:0");
        assertThat(call.body()).isEqualTo(ShaperFixture.converse("r1").text());
        assertThat(call.timeout()).isEqualTo(Duration.ofMillis(59_900));
        assertThat(bedrock.calls()).isEmpty();
        assertThat(invocations.begin("r1")).as("a repeated delivery").isEqualTo(new NoCall(Result.DUPLICATE));
    }

    @Test
    void completeWritesTheOutcomeOfACallMadeElsewhereAsProcessWould() {
        admitted("r1", DEADLINE);
        admitted("r2", DEADLINE);
        Call first = (Call) invocations.begin("r1");
        Call second = (Call) invocations.begin("r2");
        shaper.clock.advance(4_000);

        Result succeeded = invocations.complete(first, FakeModelInvoker.success("from elsewhere"));
        Result throttled = invocations.complete(second, new BedrockOutcome.Throttled("Too many tokens"));

        assertThat(succeeded).isEqualTo(Result.SUCCEEDED);
        RequestRecord done = shaper.record("r1");
        assertThat(done.state()).isEqualTo(RequestState.SUCCEEDED);
        assertThat(done.finishedAtMillis()).isEqualTo(T0 + 4_000);
        assertThat(shaper.payloads.get(done.resultRef(), shaper.now()).orElseThrow().text())
                .contains("from elsewhere");
        assertThat(throttled).isEqualTo(Result.REQUEUED);
        assertThat(shaper.record("r2").requeueReason()).isEqualTo(RequeueReason.THROTTLED);
        assertThat(shaper.resumed).extracting(RequestRecord::requestId).containsExactly("r1");
        assertThat(bedrock.calls()).isEmpty();
    }

    // ---- stale admissions: charged when the call really starts

    @Test
    void theDefaultAdmissionAgeLimitIsTheTargetsHeadroomInTheSixtySecondWindow() {
        assertThat(InvocationService.defaultMaxAdmissionAge(PacerSettings.defaults()))
                .as("0.95: 60 s x 0.05 / 0.95").isEqualTo(Duration.ofMillis(3_157));
        assertThat(InvocationService.defaultMaxAdmissionAge(PacerSettings.builder().targetUtilization(0.98).build()))
                .isEqualTo(Duration.ofMillis(1_224));
        assertThat(InvocationService.defaultMaxAdmissionAge(PacerSettings.builder().targetUtilization(0.8).build()))
                .isEqualTo(Duration.ofMillis(15_000));
        assertThat(InvocationService.defaultMaxAdmissionAge(PacerSettings.builder().targetUtilization(1.0).build()))
                .as("no headroom: the floor").isEqualTo(InvocationService.MIN_ADMISSION_AGE);
    }

    @Test
    void anAdmissionTooOldToStartGoesBackToItsPlaceWithoutABedrockCallOrARequeueSpent() {
        RequestRecord queued = shaper.enqueue("r1", MODEL, DEADLINE);
        shaper.enqueue("r2", MODEL, DEADLINE);
        shaper.admit("r1");
        shaper.wakes.clear();
        shaper.clock.advance(3_158);

        assertThat(invocations.process("r1")).isEqualTo(Result.STALE);

        RequestRecord back = shaper.record("r1");
        assertThat(back.state()).isEqualTo(RequestState.QUEUED);
        assertThat(back.requeues()).isZero();
        assertThat(back.requeueReason()).isEqualTo(RequeueReason.STALE_ADMISSION);
        assertThat(back.detail()).isEqualTo("admission 3158 ms old when its call would start (limit 3157 ms)");
        assertThat(back.enqueuedAtMillis()).isEqualTo(queued.enqueuedAtMillis());
        assertThat(shaper.queue.heads(MODEL, 10, shaper.now()).work()).extracting(item -> item.requestId())
                .containsExactly("r1", "r2");
        assertThat(bedrock.calls()).isEmpty();
        assertThat(shaper.wakes).containsExactly(MODEL);
        assertThat(shaper.resumed).isEmpty();
        assertThat(shaper.metrics.events).containsExactly("stale nova-lite");
    }

    @Test
    void anAdmissionJustWithinTheLimitIsCalled() {
        admitted("r1", DEADLINE);
        shaper.clock.advance(3_157);

        assertThat(invocations.process("r1")).isEqualTo(Result.SUCCEEDED);
        assertThat(bedrock.calls()).hasSize(1);
    }

    @Test
    void aStaleReturnDoesNotSpendTheRequeueBudget() {
        shaper.enqueue("r1", MODEL, DEADLINE);
        BedrockOutcome throttled = new BedrockOutcome.Throttled("Too many tokens");
        bedrock.answer("r1", throttled, throttled, throttled);
        List<Result> results = new ArrayList<>();
        for (int attempt = 0; attempt < 3; attempt++) {
            shaper.admit("r1");
            results.add(invocations.process("r1"));
            shaper.clock.advance(1_000);
        }

        shaper.admit("r1");
        shaper.clock.advance(10_000);
        results.add(invocations.process("r1"));
        shaper.admit("r1");
        results.add(invocations.process("r1"));

        assertThat(results).containsExactly(Result.REQUEUED, Result.REQUEUED, Result.REQUEUED, Result.STALE,
                Result.SUCCEEDED);
        assertThat(shaper.record("r1").requeues()).isEqualTo(3);
        assertThat(bedrock.calls()).hasSize(4);
    }

    @Test
    void aConfiguredAdmissionAgeReplacesTheModelsDefault() {
        InvocationService strict = InvocationService.builder().catalog(shaper.catalog).requests(shaper.requests)
                .queue(shaper.queue).payloads(shaper.payloads).usage(shaper.usage).invoker(bedrock)
                .callback(shaper.callback).wake(shaper.wake).metrics(shaper.metrics).clock(shaper.clock)
                .maxAdmissionAge(Duration.ofMillis(200)).build();
        admitted("r1", DEADLINE);
        admitted("r2", DEADLINE);
        shaper.clock.advance(200);

        assertThat(strict.process("r1")).isEqualTo(Result.SUCCEEDED);
        shaper.clock.advance(1);
        assertThat(strict.process("r2")).isEqualTo(Result.STALE);
    }

    @Test
    void anAdmissionPastItsDeadlineExpiresRatherThanGoingBackStale() {
        admitted("r1", T0 + 5_000);
        shaper.clock.set(T0 + 5_000);

        assertThat(invocations.process("r1")).isEqualTo(Result.EXPIRED);
        assertThat(shaper.record("r1").state()).isEqualTo(RequestState.EXPIRED);
    }

    private void admitted(String requestId, long deadline) {
        shaper.enqueue(requestId, MODEL, deadline);
        shaper.admit(requestId);
    }
}
