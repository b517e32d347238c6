package dev.trafficshaper.aws.dynamodb;

import static dev.trafficshaper.aws.dynamodb.Attrs.n;
import static dev.trafficshaper.aws.dynamodb.Attrs.s;

import dev.trafficshaper.request.Lifecycle;
import dev.trafficshaper.request.RequestEvent;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.StatusChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * One lifecycle event as one conditional update: {@code SET} the fields of
 * {@link Lifecycle#change}, on condition that the record is live and in a state the event may
 * leave ({@code state IN event.from()}), and before its deadline when the event needs one — the
 * same rule {@link Lifecycle#allows} applies in memory.
 */
record StatusUpdate(String updateExpression, String conditionExpression, Map<String, String> names,
                    Map<String, AttributeValue> values) {

    static StatusUpdate of(RequestEvent event, long nowMillis) {
        StatusChange change = Lifecycle.change(event, nowMillis);
        Map<String, String> names = new HashMap<>();
        Map<String, AttributeValue> values = new HashMap<>();
        List<String> sets = new ArrayList<>();
        set(sets, names, values, RequestItems.STATE, s(change.state().name()));
        set(sets, names, values, RequestItems.HTTP_STATUS,
                n(RequestRecord.httpStatus(change.state(), change.failureReason())));
        set(sets, names, values, RequestItems.UPDATED_AT, n(change.updatedAtMillis()));
        if (change.failureReason() != null) {
            set(sets, names, values, RequestItems.REASON, s(change.failureReason().name()));
        }
        if (change.detail() != null) {
            set(sets, names, values, RequestItems.DETAIL, s(change.detail()));
        }
        if (change.admittedAtMillis() != null) {
            set(sets, names, values, RequestItems.ADMITTED_AT, n(change.admittedAtMillis()));
        }
        if (change.fencingToken() != null) {
            set(sets, names, values, RequestItems.FENCE, n(change.fencingToken()));
        }
        if (change.startedAtMillis() != null) {
            set(sets, names, values, RequestItems.STARTED_AT, n(change.startedAtMillis()));
        }
        if (change.finishedAtMillis() != null) {
            set(sets, names, values, RequestItems.FINISHED_AT, n(change.finishedAtMillis()));
        }
        if (change.actualUsage() != null) {
            set(sets, names, values, RequestItems.ACTUAL, Attrs.usage(change.actualUsage()));
        }
        if (change.resultRef() != null) {
            set(sets, names, values, RequestItems.RESULT, Attrs.ref(change.resultRef()));
        }
        if (change.requeues() != null) {
            set(sets, names, values, RequestItems.REQUEUES, n(change.requeues()));
        }
        if (change.requeueReason() != null) {
            set(sets, names, values, RequestItems.REQUEUE_REASON, s(change.requeueReason().name()));
        }

        List<String> from = new ArrayList<>();
        int i = 0;
        for (RequestState state : event.from()) {
            String placeholder = ":from" + i++;
            values.put(placeholder, s(state.name()));
            from.add(placeholder);
        }
        names.put("#expiresAt", TableKeys.EXPIRES_AT);
        values.put(":nowSeconds", n(TableKeys.nowSeconds(nowMillis)));
        String condition = "#state IN (" + String.join(", ", from) + ") AND #expiresAt > :nowSeconds";
        if (event.requiresOpenDeadline()) {
            names.put("#deadlineAt", RequestItems.DEADLINE_AT);
            values.put(":nowMillis", n(nowMillis));
            condition += " AND #deadlineAt > :nowMillis";
        }
        String update = "SET " + String.join(", ", sets);
        if (event.to() != RequestState.ADMITTED && event.to() != RequestState.INVOKING) {
            // Leaves the sparse index of unsettled requests (a no-op for one that was never in it).
            names.put("#unsettledPk", TableKeys.UNSETTLED_PK);
            names.put("#unsettledSk", TableKeys.UNSETTLED_SK);
            update += " REMOVE #unsettledPk, #unsettledSk";
        }
        return new StatusUpdate(update, condition, names, values);
    }

    /** This (admission) update, also putting the request in the sparse index of unsettled requests. */
    StatusUpdate indexedAsUnsettled(String modelKey, int shard, long admittedAtMillis, String requestId) {
        Map<String, String> moreNames = new HashMap<>(names);
        Map<String, AttributeValue> moreValues = new HashMap<>(values);
        moreNames.put("#unsettledPk", TableKeys.UNSETTLED_PK);
        moreNames.put("#unsettledSk", TableKeys.UNSETTLED_SK);
        moreValues.put(":unsettledPk", s(TableKeys.unsettledPk(modelKey, shard)));
        moreValues.put(":unsettledSk", s(TableKeys.unsettledSk(admittedAtMillis, requestId)));
        return new StatusUpdate(updateExpression + ", #unsettledPk = :unsettledPk, #unsettledSk = :unsettledSk",
                conditionExpression, moreNames, moreValues);
    }

    private static void set(List<String> sets, Map<String, String> names, Map<String, AttributeValue> values,
                            String attribute, AttributeValue value) {
        names.put("#" + attribute, attribute);
        values.put(":" + attribute, value);
        sets.add("#" + attribute + " = :" + attribute);
    }

    UpdateItemRequest.Builder updateItem(String table, String requestId) {
        return UpdateItemRequest.builder().tableName(table).key(RequestItems.statusKey(requestId))
                .updateExpression(updateExpression).conditionExpression(conditionExpression)
                .expressionAttributeNames(names).expressionAttributeValues(values)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD);
    }

    Update transactUpdate(String table, String requestId) {
        return Update.builder().tableName(table).key(RequestItems.statusKey(requestId))
                .updateExpression(updateExpression).conditionExpression(conditionExpression)
                .expressionAttributeNames(names).expressionAttributeValues(values)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD).build();
    }
}
