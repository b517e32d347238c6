package dev.trafficshaper.functions.aws;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.InMemoryRequestStore;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.SendTaskFailureRequest;
import software.amazon.awssdk.services.sfn.model.SendTaskFailureResponse;
import software.amazon.awssdk.services.sfn.model.SendTaskSuccessRequest;
import software.amazon.awssdk.services.sfn.model.SendTaskSuccessResponse;
import software.amazon.awssdk.services.sfn.model.TaskTimedOutException;

/**
 * The callback reads the request's stored task token once per signal, uses a token it is given
 * instead (a retried Admit of an ended request), and signals nothing when no live token is stored.
 */
class StepFunctionsCallbackTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final long EXPIRES = T0 + 10_000_000;

    private final InMemoryRequestStore requests = new InMemoryRequestStore();
    private final List<String> sent = new ArrayList<>();
    private long now = T0 + 1_000;
    private boolean timedOut;
    private final SfnClient sfn = new SfnClient() {
        @Override
        public SendTaskSuccessResponse sendTaskSuccess(SendTaskSuccessRequest request) {
            answer("success " + request.taskToken() + " " + request.output());
            return SendTaskSuccessResponse.builder().build();
        }

        @Override
        public SendTaskFailureResponse sendTaskFailure(SendTaskFailureRequest request) {
            answer("failure " + request.taskToken() + " " + request.error());
            return SendTaskFailureResponse.builder().build();
        }

        private void answer(String call) {
            sent.add(call);
            if (timedOut) {
                throw TaskTimedOutException.builder().message("timed out").build();
            }
        }

        @Override
        public String serviceName() {
            return "states";
        }

        @Override
        public void close() {
        }
    };
    private final StepFunctionsCallback callback = new StepFunctionsCallback(sfn, requests, () -> now);

    @Test
    void aSuccessResumesTheExecutionWithTheStoredToken() {
        RequestRecord terminal = stored("r1", RequestState.SUCCEEDED, null, "stored-token");

        callback.resume(terminal);

        assertThat(sent).containsExactly(
                "success stored-token {\"requestId\":\"r1\",\"status\":\"SUCCEEDED\",\"httpStatus\":200}");
    }

    @Test
    void aFailureFailsTheTaskWithItsReasonAndTheStoredToken() {
        RequestRecord terminal = stored("r1", RequestState.FAILED, FailureReason.DEPENDENCY_ERROR, "stored-token");

        callback.resume(terminal);

        assertThat(sent).containsExactly("failure stored-token DEPENDENCY_ERROR");
    }

    @Test
    void aGivenTokenIsUsedInsteadOfTheStoredOne() {
        RequestRecord terminal = stored("r1", RequestState.SUCCEEDED, null, "stored-token");

        callback.resume(terminal, "retried-admit-token");
        callback.resumeUndelivered(terminal, "queue unreachable", "retried-admit-token");

        assertThat(sent).hasSize(2).allSatisfy(call -> assertThat(call).contains(" retried-admit-token "));
        assertThat(sent.get(1)).endsWith(StepFunctionsCallback.DELIVERY_NOT_HANDED_OFF);
    }

    @Test
    void anUndeliveredRequestFailsTheTaskWithTheStoredTokenSoThatFinalizeTriesAgain() {
        RequestRecord terminal = stored("r1", RequestState.SUCCEEDED, null, "stored-token");

        callback.resumeUndelivered(terminal, "queue unreachable");

        assertThat(sent).containsExactly("failure stored-token " + StepFunctionsCallback.DELIVERY_NOT_HANDED_OFF);
    }

    @Test
    void aRequestWithoutAStoredTokenOrPastItsRetentionIsNotSignalled() {
        RequestRecord none = stored("local", RequestState.SUCCEEDED, null, null);
        RequestRecord old = stored("old", RequestState.SUCCEEDED, null, "stored-token");

        callback.resume(none);
        callback.resumeUndelivered(none, "x");
        now = EXPIRES;
        callback.resume(old);

        assertThat(sent).isEmpty();
    }

    @Test
    void anExecutionThatNoLongerWaitsIsNotAnError() {
        RequestRecord terminal = stored("r1", RequestState.SUCCEEDED, null, "stored-token");
        timedOut = true;

        callback.resume(terminal);
        callback.resumeUndelivered(terminal, "x");

        assertThat(sent).hasSize(2);
    }

    private RequestRecord stored(String id, RequestState state, FailureReason reason, String taskToken) {
        RequestRecord record = RequestRecord.builder().requestId(id).tenant("t").modelKey("nova-lite").state(state)
                .failureReason(reason).enqueuedAtMillis(T0).updatedAtMillis(T0).deadlineMillis(T0 + 60_000)
                .finishedAtMillis(T0).estimate(TokenUsage.of(10, 10))
                .payloadRef(new PayloadRef(PayloadRef.Location.INLINE, id, PayloadKind.REQUEST, "0".repeat(64), 2,
                        EXPIRES))
                .expiresAtMillis(EXPIRES).build();
        requests.insertIfAbsent(record, taskToken, T0);
        return record;
    }
}
