package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReceiverLanesTest {

    /** Holds what it is given until the test runs it: a receiver that has not answered yet. */
    private static final class HeldExecutor extends AbstractExecutorService {
        final List<Runnable> held = new ArrayList<>();

        @Override public void execute(Runnable command) { held.add(command); }
        @Override public void shutdown() { }
        @Override public List<Runnable> shutdownNow() { return List.of(); }
        @Override public boolean isShutdown() { return false; }
        @Override public boolean isTerminated() { return false; }
        @Override public boolean awaitTermination(long timeout, TimeUnit unit) { return true; }
    }

    private final HeldExecutor executor = new HeldExecutor();
    private final ReceiverLanes lanes = new ReceiverLanes(executor, 2);
    private final List<String> delivered = new ArrayList<>();

    @Test
    void aSlowReceiverHoldsAtMostItsOwnSlotsAndNobodyElsesWebhooksWaitForIt() {
        for (int i = 1; i <= 6; i++) {
            String id = "slow-" + i;
            lanes.submit("http://slow.test:80", () -> delivered.add(id));
        }
        for (int i = 1; i <= 8; i++) {
            String id = "fast-" + i;
            lanes.submit("http://fast.test:80", () -> delivered.add(id));
        }

        assertThat(executor.held).as("two threads per receiver").hasSize(4);
        assertThat(lanes.waiting()).isEqualTo(4 + 6);
        // The slow receiver's two threads (the first two handed out) never return; the fast lane's run.
        executor.held.get(2).run();
        executor.held.get(3).run();

        assertThat(delivered).containsExactlyInAnyOrder("fast-1", "fast-2", "fast-3", "fast-4", "fast-5", "fast-6",
                "fast-7", "fast-8");
        assertThat(lanes.waiting()).as("only the slow receiver's own webhooks wait").isEqualTo(4);
    }

    @Test
    void aLaneRunsItsWebhooksInOrderAndHandsItsThreadBackWhenEmpty() {
        ReceiverLanes single = new ReceiverLanes(executor, 1);
        single.submit("r", () -> delivered.add("a"));
        single.submit("r", () -> delivered.add("b"));
        single.submit("r", () -> delivered.add("c"));

        executor.held.get(0).run();
        single.submit("r", () -> delivered.add("d"));

        assertThat(delivered).containsExactly("a", "b", "c");
        assertThat(executor.held).as("a new thread once the lane ran dry").hasSize(2);
        executor.held.get(1).run();
        assertThat(delivered).containsExactly("a", "b", "c", "d");
    }

    @Test
    void aFailingDeliveryDoesNotStopItsLane() {
        lanes.submit("r", () -> {
            throw new IllegalStateException("receiver exploded");
        });
        lanes.submit("r", () -> delivered.add("after"));
        lanes.submit("r", () -> delivered.add("later"));

        executor.held.get(0).run();

        assertThat(delivered).containsExactly("later");
        executor.held.get(1).run();
        assertThat(delivered).containsExactly("later", "after");
    }

    @Test
    void receiversAreTheSchemeHostAndPortOfTheCallback() {
        assertThat(ReceiverLanes.receiverOf("http://Hooks.Test:9000/a?b")).isEqualTo("http://hooks.test:9000");
        assertThat(ReceiverLanes.receiverOf("http://hooks.test:9000/other")).isEqualTo("http://hooks.test:9000");
        assertThat(ReceiverLanes.receiverOf("https://hooks.test/x")).isNotEqualTo(
                ReceiverLanes.receiverOf("https://hooks.test:8443/x"));
        assertThat(ReceiverLanes.receiverOf(null)).isEmpty();
    }
}
