package dev.trafficshaper.queue;

import dev.trafficshaper.request.RequestRecord;
import java.util.Objects;

/** {@code created}: this call stored the request; otherwise {@code record} is the one stored first. */
public record EnqueueResult(boolean created, RequestRecord record) {

    public EnqueueResult {
        Objects.requireNonNull(record, "record");
    }
}
