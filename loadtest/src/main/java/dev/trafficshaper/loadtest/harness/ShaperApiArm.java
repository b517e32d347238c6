package dev.trafficshaper.loadtest.harness;

import dev.trafficshaper.client.Priority;
import dev.trafficshaper.client.ShaperClient;
import dev.trafficshaper.client.Submission;
import dev.trafficshaper.client.SubmissionRejectedException;
import dev.trafficshaper.client.Submitted;
import dev.trafficshaper.client.UnexpectedResponseException;
import dev.trafficshaper.local.LocalClock;
import dev.trafficshaper.pacing.Lane;
import java.net.URI;
import java.util.concurrent.CompletionException;

/**
 * An application submitting through the shaper's API with the Java client ({@link ShaperClient},
 * SigV4-signed on AWS). It never polls: the worker records the submission, and the terminal
 * outcome arrives later by webhook ({@code callbackUrl}, locally) or as the shaper's outcome event
 * (on AWS), written by whoever receives it. A refused submission is itself a terminal outcome.
 */
public final class ShaperApiArm implements ArmDriver {

    private final ShaperClient client;
    private final String modelKey;
    private final URI callbackUrl;
    private final Long deadlineSeconds;
    private final String runId;
    private final int worker;
    private final OutcomeSink sink;
    private final LocalClock clock;
    private final InFlight inFlight;

    /**
     * @param callbackUrl     where the shaper posts each result, or null to rely on the outcome event
     * @param deadlineSeconds each request's deadline, or null for the model's default
     */
    public ShaperApiArm(ShaperClient client, String modelKey, URI callbackUrl, Long deadlineSeconds, String runId,
                        int worker, OutcomeSink sink, LocalClock clock) {
        this.client = client;
        this.modelKey = modelKey;
        this.callbackUrl = callbackUrl;
        this.deadlineSeconds = deadlineSeconds;
        this.runId = runId;
        this.worker = worker;
        this.sink = sink;
        this.clock = clock;
        this.inFlight = new InFlight(clock);
    }

    @Override
    public ArmKind kind() {
        return ArmKind.SHAPER;
    }

    @Override
    public void warmUp() {
        client.models();
    }

    @Override
    public void send(ScheduledRequest request, long scheduledMillis) {
        String id = RequestIds.of(runId, ArmKind.SHAPER, request.index());
        Submission.Builder submission = Submission.text(modelKey, PromptText.ofTokens(request.inputTokens()),
                        Math.toIntExact(request.maxTokens())).toBuilder()
                .requestId(id)
                .priority(request.lane() == Lane.INTERACTIVE ? Priority.INTERACTIVE : Priority.BULK)
                .callbackUrl(callbackUrl);
        if (deadlineSeconds != null) {
            submission.deadlineSeconds(deadlineSeconds);
        }
        OutcomeLine.Builder line = OutcomeLine.builder(ArmKind.SHAPER, id).index(request.index()).worker(worker)
                .scheduledMillis(scheduledMillis).sentMillis(clock.nowMillis());
        inFlight.started();
        client.submitAsync(submission.build()).whenComplete((submitted, error) -> {
            try {
                sink.write(error == null ? accepted(line, submitted) : refused(line, unwrap(error)));
            } finally {
                inFlight.finished();
            }
        });
    }

    private static OutcomeLine accepted(OutcomeLine.Builder line, Submitted submitted) {
        return line.status(OutcomeStatus.SUBMITTED).httpStatus(submitted.httpStatus()).build();
    }

    private OutcomeLine refused(OutcomeLine.Builder line, Throwable error) {
        line.finishedMillis(clock.nowMillis()).calls(0, 0);
        if (error instanceof SubmissionRejectedException rejected) {
            return line.status(OutcomeStatus.REJECTED).httpStatus(rejected.statusCode())
                    .reason("SUBMIT_" + rejected.statusCode() + ": " + rejected.error()).build();
        }
        if (error instanceof UnexpectedResponseException unexpected) {
            return line.status(OutcomeStatus.FAILED).httpStatus(unexpected.statusCode())
                    .reason("SUBMIT_" + unexpected.statusCode()).build();
        }
        return line.status(OutcomeStatus.FAILED).httpStatus(0)
                .reason("SUBMIT_ERROR: " + error.getClass().getSimpleName() + ": " + error.getMessage()).build();
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    @Override
    public int awaitIdle(long stopAtMillis) throws InterruptedException {
        return inFlight.awaitNone(stopAtMillis);
    }

    @Override
    public void close() {
        // the client is shared by the caller, who closes it
    }
}
