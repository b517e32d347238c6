package dev.trafficshaper.lifecycle;

import dev.trafficshaper.queue.QueueItem;
import java.util.List;

/**
 * One thing the drainer's I/O loop must do next. {@link DrainerCore} decides, the loop in
 * {@link DrainService} does it against the ports and reports the result back to the core.
 */
public sealed interface DrainStep {

    /** Extend the lease; report {@link DrainerCore#leaseRenewed} or {@link DrainerCore#leaseLost}. */
    record RenewLease() implements DrainStep {
    }

    /** Read up to {@code limitPerLane} queue heads per lane; report {@link DrainerCore#headsRead}. */
    record ReadHeads(int limitPerLane) implements DrainStep {
    }

    /** Write these picks ADMITTED, fenced by the lease; report {@link DrainerCore#admitted}. */
    record Admit(List<QueueItem> items) implements DrainStep {
        public Admit {
            items = List.copyOf(items);
        }
    }

    /** Hand these admitted requests to the Bedrock Processor, now; report each dispatch. */
    record Dispatch(List<String> requestIds) implements DrainStep {
        public Dispatch {
            requestIds = List.copyOf(requestIds);
        }
    }

    /** Read the status of these dispatched requests; report {@link DrainerCore#polled}. */
    record Poll(List<String> requestIds) implements DrainStep {
        public Poll {
            requestIds = List.copyOf(requestIds);
        }
    }

    /** Mark these overdue items EXPIRED; report each with {@link DrainerCore#expired}. */
    record Expire(List<QueueItem> items) implements DrainStep {
        public Expire {
            items = List.copyOf(items);
        }
    }

    /** Count the model's queue; report {@link DrainerCore#depthCounted}. */
    record CountDepth() implements DrainStep {
    }

    /** Publish this status on the board; report {@link DrainerCore#published}. */
    record Publish(ModelStatus status) implements DrainStep {
    }

    /** Nothing to do before {@code untilMillis}. */
    record Sleep(long untilMillis) implements DrainStep {
    }

    /** The session is over; {@code reason} is "idle", "time limit" or "lease lost". */
    record Stop(String reason) implements DrainStep {
    }
}
