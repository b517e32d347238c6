package dev.trafficshaper.functions.submit;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyRequestEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayProxyResponseEvent;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.functions.ApiResponses;
import dev.trafficshaper.functions.Json;
import dev.trafficshaper.functions.Shaper;
import dev.trafficshaper.functions.SnapStartPriming;
import dev.trafficshaper.lifecycle.RequestIdConflictException;
import dev.trafficshaper.lifecycle.SubmissionRefusedException;
import dev.trafficshaper.lifecycle.SubmissionService;
import dev.trafficshaper.lifecycle.TicketJson;
import dev.trafficshaper.submission.InvalidSubmissionException;
import dev.trafficshaper.submission.JsonContentType;
import dev.trafficshaper.submission.UnsupportedContentTypeException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sfn.model.ExecutionAlreadyExistsException;
import software.amazon.awssdk.services.sfn.model.SfnException;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * {@code POST /v1/requests}: validates and stores the body (nothing is stored for a 400, 409, 415 or
 * 429), then starts the request's execution. The execution name is derived from the tenant and the
 * request id, so a repeated submission cannot start a second execution: Step Functions refuses a
 * duplicate name, and the caller gets the same request id back.
 */
public final class SubmitHandler
        implements RequestHandler<APIGatewayProxyRequestEvent, APIGatewayProxyResponseEvent> {

    private static final Logger LOG = LoggerFactory.getLogger(SubmitHandler.class);
    /** The execution input's field the Admit step's {@code TimeoutSecondsPath} reads. */
    public static final String ADMIT_TIMEOUT_FIELD = "admitTimeoutSeconds";

    private final Shaper shaper;
    /** Held so the CRaC context, which holds resources weakly, keeps it; null when built with a shaper. */
    private SnapStartPriming priming;

    public SubmitHandler() {
        this(Shaper.fromEnvironment());
        this.priming = SnapStartPriming.register(() -> prime(shaper));
    }

    public SubmitHandler(Shaper shaper) {
        this.shaper = shaper;
    }

    /** Builds, before a SnapStart snapshot, what this handler uses: its submission service (catalog, parser, estimator, stores) and the Step Functions client. */
    public static void prime(Shaper shaper) {
        shaper.submissions();
        shaper.sfn();
    }

    @Override
    public APIGatewayProxyResponseEvent handleRequest(APIGatewayProxyRequestEvent event, Context context) {
        return PowertoolsLogging.withLogging(context, () -> {
            var tenant = ApiResponses.tenant(event);
            if (tenant.isEmpty()) {
                return ApiResponses.error(403, "the request must be signed (IAM authorization)", null);
            }
            try {
                JsonContentType.require(ApiResponses.header(event, "Content-Type"));
            } catch (UnsupportedContentTypeException e) {
                return ApiResponses.error(415, e.getMessage(), "Content-Type");
            }
            byte[] body = event.getBody() == null ? new byte[0] : Boolean.TRUE.equals(event.getIsBase64Encoded())
                    ? Base64.getDecoder().decode(event.getBody()) : event.getBody().getBytes(StandardCharsets.UTF_8);
            try {
                long now = System.currentTimeMillis();
                SubmissionService.Accepted accepted = shaper.submissions().submit(tenant.get(), body, now);
                String status = "QUEUED";
                if (accepted.isNew()) {
                    Optional<Long> busy = start(tenant.get(), accepted, now);
                    if (busy.isPresent()) {
                        return frontDoorBusy(accepted.requestId(), busy.get());
                    }
                } else {
                    status = accepted.existing().state().name();
                }
                ObjectNode response = Json.MAPPER.createObjectNode().put("requestId", accepted.requestId())
                        .put("status", status).put("statusUrl", shaper.statusUrl(accepted.requestId()));
                return ApiResponses.json(202, response.toString());
            } catch (InvalidSubmissionException e) {
                return ApiResponses.error(400, e.getMessage(), e.field());
            } catch (RequestIdConflictException e) {
                return ApiResponses.error(409, e.getMessage(), "requestId");
            } catch (SubmissionRefusedException e) {
                return ApiResponses.json(429, Json.MAPPER.createObjectNode().put("error", e.getMessage()).toString(),
                        Map.of("Retry-After", Long.toString(e.retryAfterSeconds())));
            }
        });
    }

    /**
     * Starts the request's execution, its input the ticket and the Admit step's timeout
     * ({@value #ADMIT_TIMEOUT_FIELD}, from the request's own deadline: {@code AdmitTimeout}).
     * Returns the seconds to wait when Step Functions refuses it for now (its StartExecution rate,
     * or the account's open executions): nothing was queued, and the same body posted again with
     * the same {@code requestId} starts it then, since only the Budget Manager creates the request.
     *
     * @throws RequestIdConflictException when the execution already exists for another body (a
     *                                    re-post that raced the Budget Manager's store of the first)
     */
    private Optional<Long> start(String tenant, SubmissionService.Accepted accepted, long nowMillis) {
        String name = executionName(tenant, accepted.requestId());
        ObjectNode input = TicketJson.write(accepted.ticket());
        input.put(ADMIT_TIMEOUT_FIELD, shaper.admitTimeout().seconds(accepted.ticket().deadlineMillis(), nowMillis));
        try {
            shaper.sfn().startExecution(b -> b.stateMachineArn(shaper.stateMachineArn()).name(name)
                    .input(input.toString()));
            return Optional.empty();
        } catch (ExecutionAlreadyExistsException e) {
            requireSameBody(name, accepted);
            LOG.info("execution {} already exists: a repeated submission", name);
            return Optional.empty();
        } catch (SfnException e) {
            Optional<Long> wait = retryAfterSeconds(e);
            if (wait.isEmpty()) {
                throw e;
            }
            LOG.warn("StartExecution of {} refused for now ({}): 429", name, e.awsErrorDetails().errorCode());
            return wait;
        }
    }

    /**
     * A re-post of a request id whose status item is not stored yet (the Budget Manager has not
     * run) reaches StartExecution, which refuses the name. Its body is told apart from the first by
     * the digest in the running execution's input: one DescribeExecution, on this rare path only.
     */
    private void requireSameBody(String executionName, SubmissionService.Accepted accepted) {
        String digest = accepted.ticket().bodyDigest();
        if (digest == null) {
            return;
        }
        String arn = executionArn(shaper.stateMachineArn(), executionName);
        String started;
        try {
            started = Json.MAPPER.readTree(shaper.sfn().describeExecution(b -> b.executionArn(arn)).input())
                    .path("bodyDigest").asText(null);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("execution " + executionName + " has an input that is not JSON", e);
        }
        if (started != null && !started.equals(digest)) {
            LOG.info("execution {} already exists for another body: 409", executionName);
            throw RequestIdConflictException.differentBody(accepted.requestId());
        }
    }

    /** The ARN of the execution {@code name} of the state machine {@code stateMachineArn}. */
    static String executionArn(String stateMachineArn, String name) {
        return stateMachineArn.replace(":stateMachine:", ":execution:") + ":" + name;
    }

    /**
     * How long a caller should wait after Step Functions refused a StartExecution for load: 1 s for
     * its request rate (a bucket refilled every second), 30 s for the account's limit of open
     * executions (they end as requests finish); empty for any other error.
     */
    static Optional<Long> retryAfterSeconds(SfnException e) {
        String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
        if ("ExecutionLimitExceeded".equals(code)) {
            return Optional.of(30L);
        }
        if (e.isThrottlingException() || "ThrottlingException".equals(code) || e.statusCode() == 429) {
            return Optional.of(1L);
        }
        return Optional.empty();
    }

    private static APIGatewayProxyResponseEvent frontDoorBusy(String requestId, long retryAfterSeconds) {
        ObjectNode body = Json.MAPPER.createObjectNode()
                .put("error", "the shaper cannot start more requests this second; post the same body again with"
                        + " this requestId after Retry-After")
                .put("requestId", requestId);
        return ApiResponses.json(429, body.toString(), Map.of("Retry-After", Long.toString(retryAfterSeconds)));
    }

    /**
     * The execution's name: a short hash of the tenant, then the request id itself when it is
     * already a valid name part ({@code [A-Za-z0-9_-]}, short enough), else a hash of it. Distinct
     * ids of one tenant never share a name; at most 80 characters, as Step Functions requires.
     */
    public static String executionName(String tenant, String requestId) {
        String idPart = requestId.matches("[A-Za-z0-9_-]{1,67}") ? requestId : "h" + sha256Hex(requestId, 33);
        return sha256Hex(tenant, 12) + "-" + idPart;
    }

    private static String sha256Hex(String text, int hexDigits) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, hexDigits);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
