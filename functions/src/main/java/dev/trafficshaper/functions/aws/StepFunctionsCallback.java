package dev.trafficshaper.functions.aws;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.lifecycle.WorkflowCallback;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.request.RequestStore;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.InvalidTokenException;
import software.amazon.awssdk.services.sfn.model.TaskDoesNotExistException;
import software.amazon.awssdk.services.sfn.model.TaskTimedOutException;

/**
 * Resumes the request's execution with its task token: {@code SendTaskSuccess} for a success,
 * {@code SendTaskFailure} with the failure reason as the error name otherwise. A token that is
 * no longer valid (the execution timed out, was stopped, or was already resumed) is not an error
 * here: the terminal status is written, and the finalizer has or will have recorded the rest.
 *
 * <p>The token is read here, once per signal ({@link RequestStore#taskToken}), not carried in the
 * record: it lives in its own item so the status item, written about seven times per request,
 * stays under 1 KB. A request without a stored token (none was stored, or it is past its
 * retention) is not signalled; its execution ends by its own timeout, through the finalizer.
 *
 * <p>A request whose delivery could not be handed off fails the task with
 * {@value #DELIVERY_NOT_HANDED_OFF}, whatever its outcome: the Finalize step the error leads to
 * keeps the terminal state and tries the hand-off again, with its retries.
 */
public final class StepFunctionsCallback implements WorkflowCallback {

    private static final Logger LOG = LoggerFactory.getLogger(StepFunctionsCallback.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_CAUSE = 32_768;
    public static final String DELIVERY_NOT_HANDED_OFF = "DeliveryNotHandedOff";

    private final SfnClient sfn;
    private final RequestStore requests;
    private final LongSupplier clock;

    public StepFunctionsCallback(SfnClient sfn, RequestStore requests, LongSupplier clock) {
        this.sfn = sfn;
        this.requests = requests;
        this.clock = clock;
    }

    @Override
    public void resume(RequestRecord terminal) {
        storedToken(terminal).ifPresent(token -> resume(terminal, token));
    }

    @Override
    public void resume(RequestRecord terminal, String taskToken) {
        try {
            if (terminal.state() == RequestState.SUCCEEDED) {
                ObjectNode output = JSON.createObjectNode();
                output.put("requestId", terminal.requestId());
                output.put("status", terminal.state().name());
                output.put("httpStatus", terminal.httpStatus());
                sfn.sendTaskSuccess(b -> b.taskToken(taskToken).output(output.toString()));
            } else {
                String reason = terminal.failureReason() == null ? terminal.state().name()
                        : terminal.failureReason().name();
                String cause = terminal.detail() == null ? terminal.state().name() : terminal.detail();
                sfn.sendTaskFailure(b -> b.taskToken(taskToken).error(reason)
                        .cause(cause.length() > MAX_CAUSE ? cause.substring(0, MAX_CAUSE) : cause));
            }
        } catch (TaskTimedOutException | InvalidTokenException | TaskDoesNotExistException e) {
            LOG.info("execution of {} no longer waits for its token: {}", terminal.requestId(), e.getMessage());
        }
    }

    @Override
    public void resumeUndelivered(RequestRecord terminal, String cause) {
        storedToken(terminal).ifPresent(token -> resumeUndelivered(terminal, cause, token));
    }

    @Override
    public void resumeUndelivered(RequestRecord terminal, String cause, String taskToken) {
        LOG.warn("delivery of {} not handed off, the execution's Finalize step tries again: {}",
                terminal.requestId(), cause);
        String text = cause == null || cause.isBlank() ? DELIVERY_NOT_HANDED_OFF : cause;
        try {
            sfn.sendTaskFailure(b -> b.taskToken(taskToken).error(DELIVERY_NOT_HANDED_OFF)
                    .cause(text.length() > MAX_CAUSE ? text.substring(0, MAX_CAUSE) : text));
        } catch (TaskTimedOutException | InvalidTokenException | TaskDoesNotExistException e) {
            LOG.info("execution of {} no longer waits for its token: {}", terminal.requestId(), e.getMessage());
        }
    }

    private Optional<String> storedToken(RequestRecord terminal) {
        Optional<String> token = requests.taskToken(terminal.requestId(), clock.getAsLong());
        if (token.isEmpty()) {
            LOG.info("no task token stored for {}: nothing to resume", terminal.requestId());
        }
        return token;
    }
}
