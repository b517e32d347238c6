package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.request.RequestRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HandoffThenResumeTest {

    private final ShaperFixture shaper = new ShaperFixture();
    private final List<String> trace = new ArrayList<>();
    private final WorkflowCallback workflow = new WorkflowCallback() {
        @Override
        public void resume(RequestRecord terminal) {
            trace.add("resume " + terminal.requestId());
        }

        @Override
        public void resume(RequestRecord terminal, String taskToken) {
            trace.add("resume " + terminal.requestId() + " with " + taskToken);
        }

        @Override
        public void resumeUndelivered(RequestRecord terminal, String cause) {
            trace.add("resume undelivered " + terminal.requestId() + ": " + cause);
        }

        @Override
        public void resumeUndelivered(RequestRecord terminal, String cause, String taskToken) {
            trace.add("resume undelivered " + terminal.requestId() + " with " + taskToken + ": " + cause);
        }
    };

    @Test
    void theDeliveryIsHandedOffBeforeTheWorkflowResumes() {
        HandoffThenResume callback = HandoffThenResume.create(t -> trace.add("hand off " + t.requestId()), workflow);

        callback.resume(terminal("r1"));

        assertThat(trace).containsExactly("hand off r1", "resume r1");
    }

    @Test
    void aHandOffThatFailsResumesTheWorkflowUndeliveredSoThatItTriesAgain() {
        HandoffThenResume callback = HandoffThenResume.create(t -> {
            throw new IllegalStateException("queue unreachable");
        }, workflow);

        callback.resume(terminal("r1"));

        assertThat(trace).containsExactly("resume undelivered r1: queue unreachable");
    }

    @Test
    void aResumeWithAGivenTokenKeepsThatTokenWhetherTheHandOffSucceedsOrFails() {
        HandoffThenResume delivered = HandoffThenResume.create(t -> trace.add("hand off " + t.requestId()), workflow);
        HandoffThenResume undelivered = HandoffThenResume.create(t -> {
            throw new IllegalStateException("queue unreachable");
        }, workflow);

        delivered.resume(terminal("r1"), "new-token");
        undelivered.resume(terminal("r2"), "new-token");

        assertThat(trace).containsExactly("hand off r1", "resume r1 with new-token",
                "resume undelivered r2 with new-token: queue unreachable");
    }

    @Test
    void byDefaultAResumeWithATokenIsAResume() {
        List<String> resumed = new ArrayList<>();
        WorkflowCallback plain = terminal -> resumed.add(terminal.requestId());

        HandoffThenResume.create(t -> { }, plain).resume(terminal("r1"), "token");
        HandoffThenResume.create(t -> {
            throw new IllegalStateException("down");
        }, plain).resume(terminal("r2"), "token");

        assertThat(resumed).containsExactly("r1", "r2");
    }

    @Test
    void byDefaultAnUndeliveredResumeIsAResume() {
        List<String> resumed = new ArrayList<>();
        WorkflowCallback plain = terminal -> resumed.add(terminal.requestId());

        HandoffThenResume.create(t -> {
            throw new IllegalStateException("down");
        }, plain).resume(terminal("r1"));

        assertThat(resumed).containsExactly("r1");
    }

    private RequestRecord terminal(String requestId) {
        shaper.enqueue(requestId, MODEL, T0 + 60_000);
        return shaper.queue.expire(dev.trafficshaper.queue.QueueItem.of(shaper.record(requestId)), T0 + 60_000)
                .record();
    }
}
