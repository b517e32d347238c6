package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.PACED;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The drainer's call threads: each call is the processor's whole job, bounded, and reported once. */
@Timeout(10)
class ThreadedInlineCallsTest {

    private static final long LATER = T0 + 600_000;

    private final ShaperFixture shaper = new ShaperFixture();
    private final FakeModelInvoker bedrock = new FakeModelInvoker();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch inCall = new CountDownLatch(1);
    private final Map<String, RequestRecord> ended = new ConcurrentHashMap<>();
    private ThreadedInlineCalls calls;

    @AfterEach
    void stop() {
        release.countDown();
        if (calls != null) {
            calls.close(1_000);
        }
    }

    private ThreadedInlineCalls calls(int threads) {
        calls = ThreadedInlineCalls.create(shaper.invocations(bedrock), threads);
        return calls;
    }

    private void admitted(String requestId) {
        shaper.enqueue(requestId, PACED, LATER);
        shaper.admit(requestId);
    }

    private boolean start(String requestId) {
        return calls.tryStart(PACED, requestId, (id, record, reachedBy) -> ended.put(id, record));
    }

    @Test
    void aCallRunsTheProcessorsStepsOnceAndReportsTheRecordItLeft() throws Exception {
        admitted("r1");
        calls(4);

        assertThat(start("r1")).isTrue();
        calls.awaitCalls(PACED);

        assertThat(ended.get("r1").state()).isEqualTo(RequestState.SUCCEEDED);
        assertThat(ended.get("r1").actualUsage()).isEqualTo(FakeModelInvoker.USAGE);
        assertThat(bedrock.callsFor("r1")).isEqualTo(1);
        assertThat(shaper.resumed).extracting(RequestRecord::requestId).containsExactly("r1");
        assertThat(calls.running(PACED)).isZero();
    }

    @Test
    void withEveryThreadBusyTheNextCallIsRefusedAtOnce() throws Exception {
        admitted("r1");
        admitted("r2");
        bedrock.duringCall(id -> {
            inCall.countDown();
            awaitQuietly(release);
        });
        calls(1);

        assertThat(start("r1")).isTrue();
        assertThat(inCall.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(start("r2")).as("the only thread is in r1's call").isFalse();
        assertThat(calls.running(PACED)).isEqualTo(1);
        release.countDown();
        calls.awaitCalls(PACED);

        assertThat(shaper.record("r2").state()).as("left to the asynchronous dispatch").isEqualTo(RequestState.ADMITTED);
        assertThat(bedrock.callsFor("r2")).isZero();
    }

    @Test
    void aCallThatFailsMidWayIsReportedWithoutARecord() throws Exception {
        admitted("r1");
        bedrock.duringCall(id -> {
            throw new IllegalStateException("the connection pool is gone");
        });
        calls(2);
        Map<String, Boolean> withoutRecord = new ConcurrentHashMap<>();

        calls.tryStart(PACED, "r1", (id, record, reachedBy) -> withoutRecord.put(id, record == null));
        calls.awaitCalls(PACED);

        assertThat(withoutRecord).containsEntry("r1", true);
        assertThat(shaper.record("r1").state()).as("left for the sweeper").isEqualTo(RequestState.INVOKING);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
