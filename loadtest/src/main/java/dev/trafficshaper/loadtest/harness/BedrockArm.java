package dev.trafficshaper.loadtest.harness;

import dev.trafficshaper.local.LocalClock;
import dev.trafficshaper.threads.DaemonThreads;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClientBuilder;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;
import software.amazon.awssdk.services.bedrockruntime.model.Message;
import software.amazon.awssdk.services.bedrockruntime.model.TokenUsage;

/**
 * An application calling Bedrock Converse itself with the AWS SDK for Java v2, one shared client
 * per worker, each request on its own thread as a service handling a burst would. The arm decides
 * only the client's retry strategy; {@link CallRecorder} counts every attempt the SDK makes.
 */
public final class BedrockArm implements ArmDriver {

    /** The longest one SDK call may take, retries and backoff included. */
    public static final Duration CALL_TIMEOUT = Duration.ofSeconds(120);
    /** No such model, anywhere: a warm-up call to it is refused without touching a quota. */
    static final String WARM_UP_MODEL_ID = "loadtest.warm-up-no-such-model-v1:0";

    private final ArmKind kind;
    private final BedrockRuntimeClient bedrock;
    private final String modelId;
    private final String runId;
    private final int worker;
    private final OutcomeSink sink;
    private final LocalClock clock;
    private final ExecutorService callers;
    private final InFlight inFlight;

    private BedrockArm(ArmKind kind, BedrockRuntimeClient bedrock, String modelId, String runId, int worker,
                       OutcomeSink sink, LocalClock clock) {
        this.kind = kind;
        this.bedrock = bedrock;
        this.modelId = modelId;
        this.runId = runId;
        this.worker = worker;
        this.sink = sink;
        this.clock = clock;
        this.callers = Executors.newCachedThreadPool(DaemonThreads.factory("loadtest-" + kind.wireName() + "-w" + worker));
        this.inFlight = new InFlight(clock);
    }

    /**
     * @param client a builder with the endpoint, region and credentials already set; this adds the
     *               HTTP client, the arm's retry strategy, the call timeout and the attempt counter
     */
    public static BedrockArm create(ArmKind kind, BedrockRuntimeClientBuilder client, String modelId, String runId,
                                    int worker, OutcomeSink sink, LocalClock clock) {
        if (!kind.callsBedrockDirectly()) {
            throw new IllegalArgumentException(kind.wireName() + " does not call Bedrock directly");
        }
        BedrockRuntimeClient bedrock = client
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(10))
                        .socketTimeout(CALL_TIMEOUT))
                .overrideConfiguration(o -> o.retryStrategy(RetryPolicies.forArm(kind, clock.scale()))
                        .apiCallTimeout(CALL_TIMEOUT)
                        .addExecutionInterceptor(new CallRecorder(clock)))
                .build();
        return new BedrockArm(kind, bedrock, modelId, runId, worker, sink, clock);
    }

    @Override
    public ArmKind kind() {
        return kind;
    }

    /**
     * Loads and exercises the client's whole Converse path without using quota: one CountTokens call
     * (no quota, and the simulator does not count it as a call) and one Converse call to a model id
     * that does not exist, which Bedrock and the simulator refuse before metering anything.
     */
    @Override
    public void warmUp() {
        Message hello = Message.builder().role(ConversationRole.USER).content(ContentBlock.fromText("warm up")).build();
        bedrock.countTokens(r -> r.modelId(modelId).input(i -> i.converse(c -> c.messages(hello))));
        try {
            bedrock.converse(r -> r.modelId(WARM_UP_MODEL_ID).messages(hello).inferenceConfig(c -> c.maxTokens(1)));
        } catch (AwsServiceException e) {
            // expected: the model does not exist
        }
    }

    @Override
    public void send(ScheduledRequest request, long scheduledMillis) {
        long sent = clock.nowMillis();
        inFlight.started();
        try {
            callers.execute(() -> {
                try {
                    call(request, scheduledMillis, sent);
                } finally {
                    inFlight.finished();
                }
            });
        } catch (RuntimeException e) {
            inFlight.finished();
            throw e;
        }
    }

    private void call(ScheduledRequest request, long scheduledMillis, long sentMillis) {
        String id = RequestIds.of(runId, kind, request.index());
        CallRecorder.Calls calls = new CallRecorder.Calls();
        OutcomeLine.Builder line = OutcomeLine.builder(kind, id).index(request.index()).worker(worker)
                .scheduledMillis(scheduledMillis).sentMillis(sentMillis);
        try {
            ConverseResponse response = bedrock.converse(converse(request, calls));
            TokenUsage usage = response.usage();
            line.status(OutcomeStatus.SUCCEEDED).httpStatus(200);
            if (usage != null) {
                line.tokens(orZero(usage.inputTokens()), orZero(usage.outputTokens()),
                        orZero(usage.cacheReadInputTokens()), orZero(usage.cacheWriteInputTokens()));
            }
        } catch (AwsServiceException e) {
            String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
            line.status(OutcomeStatus.FAILED).httpStatus(e.statusCode())
                    .reason(code != null ? code : e.getClass().getSimpleName());
        } catch (ApiCallTimeoutException e) {
            line.status(OutcomeStatus.FAILED).httpStatus(0).reason("ClientTimeout");
        } catch (SdkClientException e) {
            line.status(OutcomeStatus.FAILED).httpStatus(0).reason("ClientError: " + e.getMessage());
        } catch (RuntimeException e) {
            line.status(OutcomeStatus.FAILED).httpStatus(0).reason(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        line.finishedMillis(clock.nowMillis())
                .firstCallMillis(calls.firstMillis())
                .lastCallMillis(calls.lastMillis())
                .calls(calls.attempts(), calls.throttles());
        sink.write(line.build());
    }

    private ConverseRequest converse(ScheduledRequest request, CallRecorder.Calls calls) {
        return ConverseRequest.builder()
                .modelId(modelId)
                .messages(Message.builder().role(ConversationRole.USER)
                        .content(ContentBlock.fromText(PromptText.ofTokens(request.inputTokens()))).build())
                .inferenceConfig(c -> c.maxTokens(Math.toIntExact(request.maxTokens())))
                .overrideConfiguration(o -> o.putExecutionAttribute(CallRecorder.CALLS, calls))
                .build();
    }

    private static long orZero(Integer value) {
        return value == null ? 0 : value;
    }

    @Override
    public int awaitIdle(long stopAtMillis) throws InterruptedException {
        return inFlight.awaitNone(stopAtMillis);
    }

    @Override
    public void close() {
        callers.shutdownNow();
        bedrock.close();
    }
}
