package dev.trafficshaper.functions.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a million requests cost on AWS, from one request's counted calls ({@link CountedRequest}) times
 * list prices, plus the few quantities no emulator run can count: how long each function runs (billed
 * duration), the API Gateway calls in front of the handlers, the drainer's periodic reads at a steady
 * load, the delivery queue's event source polling, log volume and trace sampling. Each of those is a
 * named constant here, documented once in docs/cost-model.md's assumptions.
 *
 * <p>Formula: per million = 10^6 × Σ over lines (quantity per request × unit price). DynamoDB is
 * priced by the counted request units, Lambda by the counted invocations and by
 * memory × {@link #BILLED_MILLIS}, Step Functions by the counted state transitions.
 *
 * <p>Prices are on-demand list prices in US East (N. Virginia), arm64 Lambda, before free tiers.
 */
public final class CostModel {

    // Unit prices, USD
    public static final double STEP_FUNCTIONS_PER_TRANSITION = 25.00 / 1e6;
    public static final double LAMBDA_PER_INVOCATION = 0.20 / 1e6;
    public static final double LAMBDA_PER_GB_SECOND = 0.0000133334;
    public static final double DYNAMODB_PER_WRITE_UNIT = 0.625 / 1e6;
    public static final double DYNAMODB_PER_READ_UNIT = 0.125 / 1e6;
    public static final double S3_PER_PUT = 5.00 / 1e6;
    public static final double S3_PER_GET = 0.40 / 1e6;
    public static final double SQS_PER_REQUEST = 0.40 / 1e6;
    public static final double API_GATEWAY_PER_REQUEST = 3.50 / 1e6;
    public static final double EVENTBRIDGE_PER_EVENT = 1.00 / 1e6;
    public static final double SECRETS_MANAGER_PER_CALL = 0.05 / 1e4;
    public static final double LOGS_PER_GB = 0.50;
    public static final double XRAY_PER_TRACE = 5.00 / 1e6;

    // Assumptions
    /** POST /v1/requests and one GET /v1/requests/{id}. */
    public static final int API_CALLS_PER_REQUEST = 2;
    /** Mean Bedrock latency the Bedrock Processor waits through (and is billed for). */
    public static final long BEDROCK_LATENCY_MILLIS = 5_000;
    /** The Bedrock Processor's memory (ShaperFunctions.BEDROCK_PROCESSOR). */
    public static final int BEDROCK_PROCESSOR_MEMORY_MB = 256;
    /** Memory of each function as the stack sets it (ShaperFunctions), and billed milliseconds per invocation. */
    public static final Map<String, Integer> MEMORY_MB = Map.of("Submit", 1024, "Budget Manager", 1024,
            "Bedrock Processor", BEDROCK_PROCESSOR_MEMORY_MB, "Notifier (Deliver)", 512, "Notifier (webhook)", 512,
            "Status", 1024, "Finalizer", 512, "Queue Processor", 1024);
    public static final Map<String, Long> BILLED_MILLIS = Map.of("Submit", 50L, "Budget Manager", 80L,
            "Bedrock Processor", BEDROCK_LATENCY_MILLIS + 100, "Notifier (Deliver)", 60L, "Notifier (webhook)", 100L,
            "Status", 30L, "Finalizer", 50L);
    /** Steady load the drainer's periodic work is shared over: 1,000 requests a minute on one model. */
    public static final double REQUESTS_PER_SECOND = 1_000 / 60.0;
    public static final int SHARDS = 4;
    public static final int QUEUE_DEPTH = 1_000;
    /** The drainer's running time per request at that load: its loop, pacing and JSON (1,024 MB). */
    public static final double DRAINER_MILLIS_PER_REQUEST = 60;
    /** DrainSettings defaults: outstanding admissions polled every 500 ms, 100 per BatchGetItem (consistent). */
    public static final long DRAINER_POLL_MILLIS = 500;
    /**
     * The stack's {@code DISPATCH_MODE} default, {@code inline}: the drainer makes the calls itself
     * and learns each outcome from the call, so it polls no status for them (only calls sent the
     * asynchronous way are polled).
     */
    public static final boolean DISPATCH_INLINE = true;
    public static final int BATCH_GET_KEYS = 100;
    /** Heads read every second, one consistent Query per shard of ~50 half-KB items (7 read units). */
    public static final double HEADS_QUERIES_PER_SECOND = SHARDS;
    public static final double READ_UNITS_PER_HEADS_QUERY = 7;
    /** The whole queue counted every 5 s, half-KB items, eventually consistent. */
    public static final double DEPTH_COUNTS_PER_SECOND = 1 / 5.0;
    public static final double QUEUE_ITEM_KB = 0.5;
    /** Status board written every 2 s, lease renewed every 10 s: one write unit each. */
    public static final double DRAINER_WRITES_PER_SECOND = 1 / 2.0 + 1 / 10.0;
    /**
     * The drainer's calls the IT holds per request (one admission, one dispatch); its other calls are
     * periodic and priced from the constants above.
     */
    public static final Set<String> PER_ADMISSION_DRAINER_CALLS = Set.of("DynamoDb TransactWriteItems",
            "Lambda Invoke");
    /** The delivery queue's event source mapping: one ReceiveMessage and one DeleteMessageBatch per message. */
    public static final int EVENT_SOURCE_CALLS_PER_WEBHOOK = 2;
    /** Log bytes besides the functions' own lines (counted): the runtime's START/END/REPORT lines, EMF. */
    public static final long LOG_BYTES_PER_INVOCATION = 350;
    public static final long METRIC_LOG_BYTES_PER_REQUEST = 2_000;
    /** Step Functions logs at level ERROR: nothing on the happy path (at ALL, ~1.5 KB per transition). */
    public static final long STATE_MACHINE_LOG_BYTES_PER_TRANSITION = 0;
    /** X-Ray's default sampling (1 a second, then 5%) at that load. */
    public static final double TRACED_SHARE = (1 + 0.05 * (REQUESTS_PER_SECOND - 1)) / REQUESTS_PER_SECOND;

    /** One priced service. */
    public record Line(String service, String quantity, String unitPrice, double perMillion) {
    }

    private CostModel() {
    }

    public static List<Line> price(CountedRequest request) {
        List<Line> lines = new ArrayList<>();
        lines.add(new Line("Step Functions Standard", n(request.transitions()) + " state transitions",
                "$25.00 per million transitions", request.transitions() * STEP_FUNCTIONS_PER_TRANSITION * 1e6));
        double invocations = request.totalInvocations();
        lines.add(new Line("Lambda requests", n(invocations) + " invocations (counted), the drainer's share aside",
                "$0.20 per million", invocations * LAMBDA_PER_INVOCATION * 1e6));
        double gbSeconds = DRAINER_MILLIS_PER_REQUEST / 1000.0 * MEMORY_MB.get("Queue Processor") / 1024.0;
        StringBuilder duration = new StringBuilder();
        for (Map.Entry<String, Double> function : request.invocations().entrySet()) {
            long millis = BILLED_MILLIS.getOrDefault(function.getKey(), 100L);
            double seconds = function.getValue() * millis / 1000.0 * MEMORY_MB.getOrDefault(function.getKey(), 1024)
                    / 1024.0;
            gbSeconds += seconds;
            duration.append(function.getKey()).append(' ').append(n(seconds)).append(", ");
        }
        duration.append("drainer share ").append(n(DRAINER_MILLIS_PER_REQUEST / 1000.0));
        lines.add(new Line("Lambda duration", duration + " = " + n(gbSeconds) + " GB-s", "$0.0000133334 per GB-s",
                gbSeconds * LAMBDA_PER_GB_SECOND * 1e6));
        double writeUnits = request.totalWriteUnits() + drainerWriteUnits();
        double readUnits = request.totalReadUnits() + drainerReadUnits();
        lines.add(new Line("DynamoDB on-demand", n(writeUnits) + " write units, " + n(readUnits)
                + " read units (counted, plus the drainer's periodic " + n(drainerWriteUnits()) + " and "
                + n(drainerReadUnits()) + ")", "$0.625 per million WRU, $0.125 per million RRU",
                (writeUnits * DYNAMODB_PER_WRITE_UNIT + readUnits * DYNAMODB_PER_READ_UNIT) * 1e6));
        double puts = request.calls("S3", "PutObject");
        double gets = request.calls("S3", "GetObject");
        lines.add(new Line("S3", n(puts) + " PUT, " + n(gets) + " GET", "$5.00 per million PUT, $0.40 per million GET",
                (puts * S3_PER_PUT + gets * S3_PER_GET) * 1e6));
        double sent = request.calls("Sqs", "SendMessage");
        double sqs = serviceCalls(request, "Sqs") + sent * EVENT_SOURCE_CALLS_PER_WEBHOOK;
        lines.add(new Line("SQS", n(sqs) + " requests (the Notifier's, plus the event source's receive and delete)",
                "$0.40 per million", sqs * SQS_PER_REQUEST * 1e6));
        lines.add(new Line("API Gateway REST", API_CALLS_PER_REQUEST + " calls (POST, GET)", "$3.50 per million",
                API_CALLS_PER_REQUEST * API_GATEWAY_PER_REQUEST * 1e6));
        double events = request.calls("EventBridge", "PutEvents");
        lines.add(new Line("EventBridge", n(events) + " outcome event", "$1.00 per million",
                events * EVENTBRIDGE_PER_EVENT * 1e6));
        double secrets = serviceCalls(request, "SecretsManager");
        if (secrets > 0) {
            lines.add(new Line("Secrets Manager", n(secrets) + " GetSecretValue", "$0.05 per 10,000",
                    secrets * SECRETS_MANAGER_PER_CALL * 1e6));
        }
        double logBytes = logBytes(request);
        lines.add(new Line("CloudWatch Logs", n(logBytes / 1024) + " KB ingested", "$0.50 per GB",
                logBytes / (1024.0 * 1024 * 1024) * LOGS_PER_GB * 1e6));
        lines.add(new Line("X-Ray", n(TRACED_SHARE * 100) + "% of requests traced", "$5.00 per million traces",
                TRACED_SHARE * XRAY_PER_TRACE * 1e6));
        return lines;
    }

    public static double total(List<Line> lines) {
        return lines.stream().mapToDouble(Line::perMillion).sum();
    }

    /** Board and lease writes, shared by the requests of a second. */
    public static double drainerWriteUnits() {
        return DRAINER_WRITES_PER_SECOND / REQUESTS_PER_SECOND;
    }

    /** Settlement polls over the Bedrock latency, heads and depth queries, shared by the requests of a second. */
    public static double drainerReadUnits() {
        double polls = DISPATCH_INLINE ? 0 : (double) BEDROCK_LATENCY_MILLIS / DRAINER_POLL_MILLIS;
        double heads = HEADS_QUERIES_PER_SECOND * READ_UNITS_PER_HEADS_QUERY / REQUESTS_PER_SECOND;
        double depth = DEPTH_COUNTS_PER_SECOND * Math.ceil(QUEUE_DEPTH * QUEUE_ITEM_KB / 4) * 0.5 / REQUESTS_PER_SECOND;
        return polls + heads + depth;
    }

    private static double logBytes(CountedRequest request) {
        return request.totalInvocations() * LOG_BYTES_PER_INVOCATION + request.logBytes()
                + METRIC_LOG_BYTES_PER_REQUEST + request.transitions() * STATE_MACHINE_LOG_BYTES_PER_TRANSITION;
    }

    private static double serviceCalls(CountedRequest request, String service) {
        return request.calls().stream().filter(r -> r.service().equals(service)).mapToDouble(CountedRequest.Row::calls)
                .sum();
    }

    private static String n(double value) {
        return CountedRequest.number(value);
    }

    static String dollars(double value) {
        return String.format(Locale.ROOT, "$%.2f", value);
    }
}
