package dev.trafficshaper.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ConcurrentDispatchTest {

    private final List<String> givenUp = Collections.synchronizedList(new ArrayList<>());

    @Test
    void dispatchesRunConcurrentlyWithoutHoldingTheCaller() throws Exception {
        CountDownLatch allStarted = new CountDownLatch(4);
        CountDownLatch release = new CountDownLatch(1);
        List<String> sent = Collections.synchronizedList(new ArrayList<>());
        try (ConcurrentDispatch dispatch = ConcurrentDispatch.of((model, id) -> {
            allStarted.countDown();
            await(release);
            sent.add(id);
        }, 4, this::gaveUp)) {
            for (int i = 1; i <= 4; i++) {
                dispatch.dispatch("m", "r" + i);
            }
            assertThat(allStarted.await(5, TimeUnit.SECONDS)).as("four calls in flight at once").isTrue();
            assertThat(dispatch.pending()).isEqualTo(4);

            release.countDown();
            dispatch.flush();

            assertThat(dispatch.pending()).isZero();
            assertThat(sent).containsExactlyInAnyOrder("r1", "r2", "r3", "r4");
        }
    }

    @Test
    void aFailedCallIsTriedAgainAndOneThatAlwaysFailsIsReported() throws Exception {
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        try (ConcurrentDispatch dispatch = ConcurrentDispatch.of((model, id) -> {
            int call = calls.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            if (id.equals("broken") || call == 1) {
                throw new IllegalStateException("503 from Lambda");
            }
        }, 2, 3, 0, this::gaveUp)) {
            dispatch.dispatch("m", "flaky");
            dispatch.dispatch("m", "broken");
            dispatch.flush();
        }

        assertThat(calls.get("flaky").get()).isEqualTo(2);
        assertThat(calls.get("broken").get()).isEqualTo(3);
        assertThat(givenUp).containsExactly("m/broken: 503 from Lambda");
    }

    @Test
    void aFullHandOffMakesTheCallerWaitInsteadOfDroppingADispatch() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger sent = new AtomicInteger();
        try (ConcurrentDispatch dispatch = ConcurrentDispatch.of((model, id) -> {
            await(release);
            sent.incrementAndGet();
        }, 1, this::gaveUp)) {
            dispatch.dispatch("m", "r1");
            dispatch.dispatch("m", "r2");
            Thread third = new Thread(() -> dispatch.dispatch("m", "r3"));
            third.start();
            while (third.getState() != Thread.State.WAITING) {
                Thread.onSpinWait(); // until the third caller blocks on the full hand-off
            }
            assertThat(sent.get()).as("one in flight, one queued, the third caller waits").isZero();

            release.countDown();
            third.join();
            dispatch.flush();
        }
        assertThat(sent.get()).isEqualTo(3);
    }

    private void gaveUp(String model, String requestId, RuntimeException failure) {
        givenUp.add(model + "/" + requestId + ": " + failure.getMessage());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
