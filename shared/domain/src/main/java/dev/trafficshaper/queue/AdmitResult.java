package dev.trafficshaper.queue;

import dev.trafficshaper.request.TransitionResult;
import java.util.List;

/**
 * What a fenced admission did: {@code admitted} are now ADMITTED and off the queue;
 * {@code refused} carry each refused request's current record. A refused request that is no
 * longer queued has had its leftover queue item removed; one still QUEUED is past its deadline.
 */
public record AdmitResult(List<QueueItem> admitted, List<TransitionResult> refused) {

    public AdmitResult {
        admitted = List.copyOf(admitted);
        refused = List.copyOf(refused);
    }
}
