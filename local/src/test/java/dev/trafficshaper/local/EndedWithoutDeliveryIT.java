package dev.trafficshaper.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.testing.AwsEmulator;
import org.junit.jupiter.api.Test;

/**
 * The DynamoDB listing behind the running runtime's {@link UndeliveredSweep}, against the
 * emulator: it names the ended requests with a callback whose delivery carries no hand-off mark
 * (never handed off, or a hand-off that failed), and none that is handed off or still running.
 */
class EndedWithoutDeliveryIT {

    private static final String MODELS = """
            {"models": {"nova-lite": {"modelId": "amazon.nova-lite-v1:0", "quotas": {"tpm": 1000000},
                                      "maxTokens": 2000, "shards": 2}}}""";

    @Test
    void listsTheEndedRequestsNeverHandedOffAndNoOther() {
        AwsEmulator aws = AwsEmulator.shared();
        LocalStores stores = LocalStores.dynamoDb(aws.dynamoDb(), aws.s3(), "undelivered-" + System.nanoTime(),
                "undelivered-payloads-" + System.nanoTime()).apply(ModelCatalog.parse(MODELS));
        long now = System.currentTimeMillis() / 1000 * 1000;

        expire(stores, enqueue(stores, "never-handed-off", now), now);
        RequestRecord failed = expire(stores, enqueue(stores, "hand-off-failed", now), now);
        stores.requests().recordDelivery(failed.requestId(), DeliveryState.notHandedOff("queue unreachable"), now);
        RequestRecord handedOff = expire(stores, enqueue(stores, "handed-off", now), now);
        stores.requests().recordHandoff(handedOff.requestId(), true, now);
        enqueue(stores, "still-queued", now);

        assertThat(stores.endedWithoutDelivery().get()).containsExactlyInAnyOrder("never-handed-off",
                "hand-off-failed");
    }

    private static RequestRecord enqueue(LocalStores stores, String requestId, long now) {
        return stores.queue().enqueue(NewRequest.builder().requestId(requestId).tenant("t").modelKey("nova-lite")
                .lane(Lane.INTERACTIVE).deadlineMillis(now + 600_000).estimate(TokenUsage.of(10, 100))
                .payloadRef(new PayloadRef(PayloadRef.Location.INLINE, requestId, PayloadKind.REQUEST, "0".repeat(64),
                        2, now + 10_000_000))
                .taskToken("token-" + requestId).callbackUrl("http://127.0.0.1:9/hook").build(), now).record();
    }

    private static RequestRecord expire(LocalStores stores, RequestRecord queued, long now) {
        RequestRecord ended = stores.queue().expire(QueueItem.of(queued), now).record();
        assertThat(ended.isTerminal()).isTrue();
        return ended;
    }
}
