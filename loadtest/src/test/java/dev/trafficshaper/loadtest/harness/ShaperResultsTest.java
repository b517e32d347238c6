package dev.trafficshaper.loadtest.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ShaperResultsTest {

    private static final String ID = RequestIds.of(TestRuns.RUN_ID, ArmKind.SHAPER, 7);

    @Test
    void aSucceededResultIsTheTerminalLineWithItsAdmissionCallsAndTokens() {
        String body = """
                {"requestId": "%s", "model": "nova-lite", "status": "SUCCEEDED", "httpStatus": 200,
                 "submittedAt": "2025-03-01T10:15:00Z", "admittedAt": "2025-03-01T10:16:00Z",
                 "finishedAt": "2025-03-01T10:16:04Z", "requeues": 1,
                 "usage": {"inputTokens": 18000, "outputTokens": 500, "cacheReadTokens": 10, "cacheWriteTokens": 20},
                 "response": {"output": {}}}
                """.formatted(ID);

        OutcomeLine line = ShaperResults.line(LoadTestJson.tree(body), 123L, OutcomeLine.FROM_WEBHOOK).orElseThrow();

        assertThat(line.arm()).isEqualTo("shaper");
        assertThat(line.index()).isEqualTo(7);
        assertThat(line.status()).isEqualTo(OutcomeStatus.SUCCEEDED);
        assertThat(line.finishedMillis()).isEqualTo(123L);
        assertThat(line.firstCallMillis()).isEqualTo(Instant.parse("2025-03-01T10:16:00Z").toEpochMilli());
        assertThat(line.bedrockCalls()).isEqualTo(2);
        assertThat(line.throttles()).isEqualTo(1);
        assertThat(line.inputTokens()).isEqualTo(18_000);
        assertThat(line.cacheWriteTokens()).isEqualTo(20);
        assertThat(line.source()).isEqualTo("webhook");
    }

    @Test
    void anEventWithoutAReceiptTimeIsTimedByTheShapersFinish() {
        String body = """
                {"requestId": "%s", "status": "EXPIRED", "httpStatus": 504, "reason": "DEADLINE_EXPIRED",
                 "finishedAt": "2025-03-01T10:30:00Z", "requeues": 0}
                """.formatted(ID);

        OutcomeLine line = ShaperResults.line(LoadTestJson.tree(body), null, OutcomeLine.FROM_EVENT).orElseThrow();

        assertThat(line.status()).isEqualTo(OutcomeStatus.EXPIRED);
        assertThat(line.reason()).isEqualTo("DEADLINE_EXPIRED");
        assertThat(line.httpStatus()).isEqualTo(504);
        assertThat(line.finishedMillis()).isEqualTo(Instant.parse("2025-03-01T10:30:00Z").toEpochMilli());
        assertThat(line.bedrockCalls()).isZero();
    }

    @Test
    void aPendingResultOrAnotherApplicationsRequestIsNoOutcome() {
        assertThat(ShaperResults.line(LoadTestJson.tree("{\"requestId\": \"" + ID + "\", \"status\": \"QUEUED\"}"),
                1L, OutcomeLine.FROM_WEBHOOK)).isEmpty();
        assertThat(ShaperResults.line(LoadTestJson.tree("{\"requestId\": \"other-123\", \"status\": \"SUCCEEDED\"}"),
                1L, OutcomeLine.FROM_WEBHOOK)).isEmpty();
        String direct = RequestIds.of(TestRuns.RUN_ID, ArmKind.DIRECT, 1);
        assertThat(ShaperResults.line(LoadTestJson.tree("{\"requestId\": \"" + direct + "\", \"status\": \"SUCCEEDED\"}"),
                1L, OutcomeLine.FROM_WEBHOOK)).isEmpty();
    }
}
