package dev.trafficshaper.delivery;

import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.lifecycle.FakeModelInvoker;
import dev.trafficshaper.lifecycle.ShaperFixture;
import dev.trafficshaper.request.DelegatingRequestStore;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestStore;
import dev.trafficshaper.submission.CallbackUrlPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/** The local runtime's webhook queue on fake time: the same schedule as SQS plays on AWS. */
class ScheduledWebhookQueueTest {

    private static final Executor INLINE = Runnable::run;

    private final ShaperFixture shaper = new ShaperFixture();
    private final ScriptedTransport transport = new ScriptedTransport();
    private final ScheduledWebhookQueue queue = new ScheduledWebhookQueue(shaper.clock);
    private final List<Long> attemptTimes = new ArrayList<>();
    private final WebhookSender sender = WebhookSender.builder().requests(shaper.requests)
            .status(StatusService.create(shaper.catalog, shaper.requests, shaper.payloads, shaper.board))
            .transport((target, headers, body) -> {
                attemptTimes.add(shaper.now() - T0);
                return transport.post(target, headers, body);
            })
            .callbacks(CallbackUrlPolicy.local()).secret("s".getBytes(StandardCharsets.UTF_8))
            .schedule(DeliverySchedule.of(4, Duration.ofSeconds(30), Duration.ofMinutes(1))).build();

    @Test
    void aReceiverThatFailsTwiceIsServedOnTheThirdAttemptAtTheScheduledTimes() {
        finished("r1");
        transport.answer(503, 503, 200);
        queue.enqueue("r1");

        runUntilIdle();

        assertThat(attemptTimes).containsExactly(0L, 30_000L, 90_000L);
        DeliveryState state = shaper.record("r1").delivery();
        assertThat(state.attempts()).isEqualTo(3);
        assertThat(state.delivered()).isTrue();
        assertThat(queue.pending()).isZero();
        assertThat(queue.deadLettered()).isEmpty();
    }

    @Test
    void aReceiverThatAlwaysFailsEndsDeadLetteredAfterTheLastAttempt() {
        finished("r1");
        transport.answer(500, 500, 500, 500, 500);
        queue.enqueue("r1");

        runUntilIdle();

        assertThat(attemptTimes).containsExactly(0L, 30_000L, 90_000L, 150_000L);
        DeliveryState state = shaper.record("r1").delivery();
        assertThat(state.deadLettered()).isTrue();
        assertThat(state.attempts()).isEqualTo(4);
        assertThat(queue.deadLettered()).containsExactly("r1");
    }

    @Test
    void nothingIsSentBeforeItIsDue() {
        finished("r1");
        transport.answer(503);
        queue.enqueue("r1");
        queue.runDue(sender, INLINE);
        shaper.clock.advance(29_999);

        assertThat(queue.runDue(sender, INLINE)).isZero();
        assertThat(queue.nextDueAtMillis()).isEqualTo(T0 + 30_000);
    }

    @Test
    void eachAttemptIsRoutedByTheReceiverItsEntryCarriesRetriesIncluded() {
        finished("r1");
        transport.answer(503, 200);
        queue.enqueue("r1", "http://127.0.0.1:9/hook");
        List<String> routed = new ArrayList<>();

        for (int step = 0; step < 10 && queue.pending() > 0; step++) {
            shaper.clock.set(Math.max(shaper.now(), queue.nextDueAtMillis()));
            queue.runDueRouted(sender, callbackUrl -> {
                routed.add(callbackUrl);
                return INLINE;
            });
        }

        assertThat(routed).containsExactly("http://127.0.0.1:9/hook", "http://127.0.0.1:9/hook");
        assertThat(shaper.record("r1").delivery().delivered()).isTrue();
    }

    @Test
    void aWebhookQueuedWithoutItsReceiverIsRoutedWithNone() {
        finished("r1");
        transport.answer(200);
        queue.enqueue("r1");
        List<String> routed = new ArrayList<>();

        queue.runDueRouted(sender, callbackUrl -> {
            routed.add(callbackUrl);
            return INLINE;
        });

        assertThat(routed).containsOnlyNulls().hasSize(1);
    }

    @Test
    void anAttemptThatThrowsIsDueAgainLaterInsteadOfDropped() {
        finished("r1");
        transport.answer(200);
        RequestStore flaky = new FlakyStore(shaper.requests);
        WebhookSender onFlakyStore = WebhookSender.builder().requests(flaky)
                .status(StatusService.create(shaper.catalog, shaper.requests, shaper.payloads, shaper.board))
                .transport(transport::post).callbacks(CallbackUrlPolicy.local())
                .secret("s".getBytes(StandardCharsets.UTF_8))
                .schedule(DeliverySchedule.of(4, Duration.ofSeconds(30), Duration.ofMinutes(1))).build();
        queue.enqueue("r1");

        queue.runDue(onFlakyStore, INLINE);
        assertThat(queue.pending()).as("the failed attempt waits again").isEqualTo(1);
        assertThat(queue.nextDueAtMillis()).isEqualTo(shaper.now() + ScheduledWebhookQueue.FAILED_ATTEMPT_RETRY_MILLIS);

        shaper.clock.set(queue.nextDueAtMillis());
        queue.runDue(onFlakyStore, INLINE);
        assertThat(queue.pending()).isZero();
        assertThat(shaper.record("r1").delivery().delivered()).isTrue();
        assertThat(shaper.record("r1").delivery().attempts()).isEqualTo(1);
    }

    /** The fixture's store, whose first read fails as an unreachable table would. */
    private static final class FlakyStore extends DelegatingRequestStore {
        private boolean failed;

        FlakyStore(RequestStore inner) {
            super(inner);
        }

        @Override
        public Optional<RequestRecord> find(String requestId, long nowMillis) {
            if (!failed) {
                failed = true;
                throw new IllegalStateException("store unreachable");
            }
            return super.find(requestId, nowMillis);
        }
    }

    private void runUntilIdle() {
        for (int step = 0; step < 100 && queue.pending() > 0; step++) {
            shaper.clock.set(Math.max(shaper.now(), queue.nextDueAtMillis()));
            queue.runDue(sender, INLINE);
        }
    }

    private void finished(String requestId) {
        shaper.enqueue(shaper.newRequest(requestId, MODEL, T0 + 600_000).callbackUrl("http://127.0.0.1:9/hook").build());
        shaper.admit(requestId);
        shaper.invocations(new FakeModelInvoker()).process(requestId);
    }
}
