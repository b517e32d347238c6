package dev.trafficshaper.aws.dynamodb;

import static dev.trafficshaper.aws.dynamodb.Attrs.n;
import static dev.trafficshaper.aws.dynamodb.Attrs.number;
import static dev.trafficshaper.aws.dynamodb.Attrs.s;
import static dev.trafficshaper.aws.dynamodb.Attrs.string;

import dev.trafficshaper.pacing.Lane;
import dev.trafficshaper.queue.QueueItem;
import dev.trafficshaper.request.DeliveryState;
import dev.trafficshaper.request.FailureReason;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequeueReason;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The item layout of request status records, their task tokens and queue items. */
final class RequestItems {

    static final String ENTITY = "entity";
    static final String REQUEST_ID = "requestId";
    static final String TENANT = "tenant";
    static final String MODEL = "model";
    static final String LANE = "lane";
    static final String STATE = "state";
    static final String SHARD = "shard";
    static final String ENQUEUED_AT = "enqueuedAt";
    static final String DEADLINE_AT = "deadlineAt";
    static final String UPDATED_AT = "updatedAt";
    static final String ADMITTED_AT = "admittedAt";
    static final String STARTED_AT = "startedAt";
    static final String FINISHED_AT = "finishedAt";
    static final String FENCE = "fence";
    static final String ESTIMATE = "estimate";
    static final String PAYLOAD = "payload";
    static final String REASON = "reason";
    static final String DETAIL = "detail";
    static final String ACTUAL = "actual";
    static final String RESULT = "result";
    static final String TASK_TOKEN = "taskToken";
    static final String CALLBACK_URL = "callbackUrl";
    static final String BODY_DIGEST = "bodyDigest";
    static final String HTTP_STATUS = "httpStatus";
    static final String REQUEUES = "requeues";
    static final String REQUEUE_REASON = "requeueReason";
    static final String DELIVERY = "delivery";
    static final String DELIVERY_ATTEMPTS = "attempts";
    static final String DELIVERY_DELIVERED = "delivered";
    static final String HANDED_OFF_AT = "handedOffAt";

    private RequestItems() {
    }

    static Map<String, AttributeValue> statusKey(String requestId) {
        return Attrs.key(TableKeys.requestPk(requestId), TableKeys.STATUS_SK);
    }

    static Map<String, AttributeValue> tokenKey(String requestId) {
        return Attrs.key(TableKeys.requestPk(requestId), TableKeys.TOKEN_SK);
    }

    /** The task token item: the token alone, with the TTL of the request's status item. */
    static Map<String, AttributeValue> token(String requestId, String taskToken, long expiresAtMillis) {
        Map<String, AttributeValue> item = tokenKey(requestId);
        item.put(ENTITY, s("taskToken"));
        item.put(TASK_TOKEN, s(taskToken));
        item.put(TableKeys.EXPIRES_AT, n(expiresAtMillis / 1000));
        return item;
    }

    static Map<String, AttributeValue> queueKey(QueueItem item) {
        return Attrs.key(TableKeys.queuePk(item.modelKey(), item.shard()),
                TableKeys.queueSk(item.lane(), item.tenant(), item.enqueuedAtMillis(), item.requestId()));
    }

    static Map<String, AttributeValue> status(RequestRecord r) {
        Map<String, AttributeValue> item = statusKey(r.requestId());
        item.put(ENTITY, s("request"));
        item.put(REQUEST_ID, s(r.requestId()));
        item.put(TENANT, s(r.tenant()));
        item.put(MODEL, s(r.modelKey()));
        item.put(LANE, s(r.lane().wireName()));
        item.put(STATE, s(r.state().name()));
        item.put(HTTP_STATUS, n(r.httpStatus()));
        item.put(SHARD, n(r.shard()));
        item.put(ENQUEUED_AT, n(r.enqueuedAtMillis()));
        item.put(DEADLINE_AT, n(r.deadlineMillis()));
        item.put(UPDATED_AT, n(r.updatedAtMillis()));
        item.put(ADMITTED_AT, n(r.admittedAtMillis()));
        item.put(STARTED_AT, n(r.startedAtMillis()));
        item.put(FINISHED_AT, n(r.finishedAtMillis()));
        item.put(FENCE, n(r.fencingToken()));
        item.put(ESTIMATE, Attrs.usage(r.estimate()));
        item.put(PAYLOAD, Attrs.ref(r.payloadRef()));
        if (r.failureReason() != null) {
            item.put(REASON, s(r.failureReason().name()));
        }
        if (r.detail() != null) {
            item.put(DETAIL, s(r.detail()));
        }
        if (r.actualUsage() != null) {
            item.put(ACTUAL, Attrs.usage(r.actualUsage()));
        }
        if (r.resultRef() != null) {
            item.put(RESULT, Attrs.ref(r.resultRef()));
        }
        if (r.callbackUrl() != null) {
            item.put(CALLBACK_URL, s(r.callbackUrl()));
        }
        if (r.bodyDigest() != null) {
            item.put(BODY_DIGEST, s(r.bodyDigest()));
        }
        item.put(TableKeys.EXPIRES_AT, n(r.expiresAtMillis() / 1000));
        item.put(REQUEUES, n(r.requeues()));
        if (r.requeueReason() != null) {
            item.put(REQUEUE_REASON, s(r.requeueReason().name()));
        }
        if (r.delivery() != null) {
            item.put(DELIVERY, delivery(r.delivery()));
        }
        if (r.handedOffAtMillis() > 0) {
            item.put(HANDED_OFF_AT, n(r.handedOffAtMillis()));
        }
        return item;
    }

    static RequestRecord status(Map<String, AttributeValue> item) {
        String reason = string(item, REASON);
        String requeueReason = string(item, REQUEUE_REASON);
        return RequestRecord.builder()
                .requestId(string(item, REQUEST_ID))
                .tenant(string(item, TENANT))
                .modelKey(string(item, MODEL))
                .lane(Lane.fromWireName(string(item, LANE)))
                .state(RequestState.valueOf(string(item, STATE)))
                .shard((int) number(item, SHARD))
                .enqueuedAtMillis(number(item, ENQUEUED_AT))
                .deadlineMillis(number(item, DEADLINE_AT))
                .updatedAtMillis(number(item, UPDATED_AT))
                .admittedAtMillis(number(item, ADMITTED_AT))
                .startedAtMillis(number(item, STARTED_AT))
                .finishedAtMillis(number(item, FINISHED_AT))
                .fencingToken(number(item, FENCE))
                .estimate(Attrs.usage(item, ESTIMATE))
                .payloadRef(Attrs.ref(item, PAYLOAD))
                .failureReason(reason == null ? null : FailureReason.valueOf(reason))
                .detail(string(item, DETAIL))
                .actualUsage(Attrs.usage(item, ACTUAL))
                .resultRef(Attrs.ref(item, RESULT))
                .callbackUrl(string(item, CALLBACK_URL))
                .bodyDigest(string(item, BODY_DIGEST))
                .expiresAtMillis(number(item, TableKeys.EXPIRES_AT) * 1000)
                .requeues((int) number(item, REQUEUES))
                .requeueReason(requeueReason == null ? null : RequeueReason.valueOf(requeueReason))
                .delivery(delivery(item.get(DELIVERY)))
                .handedOffAtMillis(number(item, HANDED_OFF_AT))
                .build();
    }

    static AttributeValue delivery(DeliveryState d) {
        Map<String, AttributeValue> m = new HashMap<>();
        m.put(DELIVERY_ATTEMPTS, n(d.attempts()));
        m.put("lastStatus", n(d.lastStatus()));
        if (d.lastError() != null) {
            m.put("lastError", s(d.lastError()));
        }
        m.put("lastAttemptAt", n(d.lastAttemptAtMillis()));
        m.put("nextAttemptAt", n(d.nextAttemptAtMillis()));
        m.put(DELIVERY_DELIVERED, AttributeValue.fromBool(d.delivered()));
        m.put("deadLettered", AttributeValue.fromBool(d.deadLettered()));
        return AttributeValue.fromM(m);
    }

    private static DeliveryState delivery(AttributeValue value) {
        if (value == null || !value.hasM()) {
            return null;
        }
        Map<String, AttributeValue> m = value.m();
        return new DeliveryState((int) number(m, DELIVERY_ATTEMPTS), (int) number(m, "lastStatus"),
                string(m, "lastError"), number(m, "lastAttemptAt"), number(m, "nextAttemptAt"),
                Boolean.TRUE.equals(m.get(DELIVERY_DELIVERED).bool()), Boolean.TRUE.equals(m.get("deadLettered").bool()));
    }

    static Map<String, AttributeValue> queueItem(QueueItem q) {
        Map<String, AttributeValue> item = new HashMap<>(queueKey(q));
        item.put(ENTITY, s("queue"));
        item.put(REQUEST_ID, s(q.requestId()));
        item.put(TENANT, s(q.tenant()));
        item.put(MODEL, s(q.modelKey()));
        item.put(LANE, s(q.lane().wireName()));
        item.put(SHARD, n(q.shard()));
        item.put(ENQUEUED_AT, n(q.enqueuedAtMillis()));
        item.put(DEADLINE_AT, n(q.deadlineMillis()));
        item.put(ESTIMATE, Attrs.usage(q.estimate()));
        item.put(TableKeys.EXPIRES_AT, n(q.expiresAtMillis() / 1000));
        return item;
    }

    static QueueItem queueItem(Map<String, AttributeValue> item) {
        return new QueueItem(string(item, MODEL), (int) number(item, SHARD), Lane.fromWireName(string(item, LANE)),
                number(item, ENQUEUED_AT), string(item, REQUEST_ID), string(item, TENANT),
                number(item, DEADLINE_AT), Attrs.usage(item, ESTIMATE), number(item, TableKeys.EXPIRES_AT) * 1000);
    }
}
