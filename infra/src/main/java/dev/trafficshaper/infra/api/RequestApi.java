package dev.trafficshaper.infra.api;

import java.util.List;
import java.util.Map;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.apigateway.AccessLogField;
import software.amazon.awscdk.services.apigateway.AccessLogFormat;
import software.amazon.awscdk.services.apigateway.AuthorizationType;
import software.amazon.awscdk.services.apigateway.EndpointType;
import software.amazon.awscdk.services.apigateway.GatewayResponseOptions;
import software.amazon.awscdk.services.apigateway.LambdaIntegration;
import software.amazon.awscdk.services.apigateway.LogGroupLogDestination;
import software.amazon.awscdk.services.apigateway.MethodDeploymentOptions;
import software.amazon.awscdk.services.apigateway.MethodLoggingLevel;
import software.amazon.awscdk.services.apigateway.MethodOptions;
import software.amazon.awscdk.services.apigateway.Model;
import software.amazon.awscdk.services.apigateway.RequestValidator;
import software.amazon.awscdk.services.apigateway.Resource;
import software.amazon.awscdk.services.apigateway.ResponseType;
import software.amazon.awscdk.services.apigateway.RestApi;
import software.amazon.awscdk.services.apigateway.StageOptions;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.constructs.Construct;

/**
 * The shaper's HTTP API. Every method requires SigV4 (IAM) authorization, so the tenant of a
 * request is the authenticated principal API Gateway hands to the function, never a header.
 * Bodies are checked against {@link RequestSchema} before a function runs. Submissions and status
 * reads have their own method throttles ({@link FrontDoorThrottles}): {@code POST /v1/requests}
 * protects the Step Functions quotas each submission spends, {@code GET /v1/requests/{id}} is sized
 * for the polls of the requests admitted, and the stage default covers the rest.
 */
public final class RequestApi extends Construct {

    private static final String JSON = "application/json";
    public static final String SUBMIT_PATH = "/v1/requests";
    public static final String STATUS_PATH = "/v1/requests/{id}";
    private final RestApi api;
    private final LogGroup accessLogs;
    private final ApiWebAcl webAcl;

    public RequestApi(Construct scope, String id, RequestApiProps props) {
        super(scope, id);
        this.accessLogs = LogGroup.Builder.create(this, "AccessLogs")
                .retention(props.production() ? RetentionDays.THREE_MONTHS : RetentionDays.TWO_WEEKS)
                .removalPolicy(props.production() ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY)
                .build();
        this.api = RestApi.Builder.create(this, "Api")
                .description("Traffic Shaper for Amazon Bedrock: submit requests, read results")
                .endpointTypes(List.of(EndpointType.REGIONAL))
                .cloudWatchRole(true)
                .cloudWatchRoleRemovalPolicy(RemovalPolicy.RETAIN)
                .defaultMethodOptions(MethodOptions.builder()
                        .authorizationType(AuthorizationType.IAM)
                        .build())
                .deployOptions(StageOptions.builder()
                        .stageName(props.stageName())
                        .throttlingRateLimit(props.throttles().other().rate())
                        .throttlingBurstLimit(props.throttles().other().burst())
                        .methodOptions(Map.of(
                                SUBMIT_PATH + "/POST", throttled(props.throttles().submit()),
                                STATUS_PATH + "/GET", throttled(props.throttles().status())))
                        .loggingLevel(MethodLoggingLevel.ERROR)
                        .dataTraceEnabled(false)
                        .metricsEnabled(true)
                        .tracingEnabled(true)
                        .accessLogDestination(new LogGroupLogDestination(accessLogs))
                        .accessLogFormat(accessLogFormat())
                        .build())
                .build();

        RequestValidator validator = RequestValidator.Builder.create(this, "Validator")
                .restApi(api)
                .requestValidatorName("body-and-parameters")
                .validateRequestBody(true)
                .validateRequestParameters(true)
                .build();
        Model submitModel = Model.Builder.create(this, "SubmitRequestModel")
                .restApi(api)
                .contentType(JSON)
                .modelName("SubmitRequest")
                .schema(RequestSchema.forModels(props.models()))
                .build();

        // SUBMIT_PATH and STATUS_PATH name these resources in the stage's method settings.
        Resource v1 = api.getRoot().addResource("v1");
        Resource requests = v1.addResource("requests");
        requests.addMethod("POST", new LambdaIntegration(props.submit()), MethodOptions.builder()
                .requestValidator(validator)
                .requestModels(Map.of(JSON, submitModel))
                .build());
        requests.addResource("{id}").addMethod("GET", new LambdaIntegration(props.status()), MethodOptions.builder()
                .requestValidator(validator)
                .requestParameters(Map.of("method.request.path.id", true))
                .build());
        v1.addResource("models").addMethod("GET", new LambdaIntegration(props.status()), MethodOptions.builder()
                .requestValidator(validator)
                .build());

        errorResponses();

        this.webAcl = props.webAcl() ? new ApiWebAcl(this, "WebAcl", api.getDeploymentStage(),
                props.throttles().totalRate()) : null;
    }

    private static MethodDeploymentOptions throttled(MethodThrottle throttle) {
        return MethodDeploymentOptions.builder()
                .throttlingRateLimit(throttle.rate())
                .throttlingBurstLimit(throttle.burst())
                .metricsEnabled(true)
                .loggingLevel(MethodLoggingLevel.ERROR)
                .dataTraceEnabled(false)
                .build();
    }

    /**
     * Every answer API Gateway gives itself is JSON with an {@code error} field, like the functions'
     * own: {@code $context.error.messageString} is the message already quoted as a JSON string
     * (gateway responses are plain substitutions, not VTL, so nothing else could escape it). A
     * refused body names no field more precise than {@code body}; the validator's own explanation
     * is in the access log ({@code validationError}). Stage throttling answers 429 with
     * {@code Retry-After}, like the shaper's own refusals.
     */
    private void errorResponses() {
        gatewayResponse("InvalidBody", ResponseType.BAD_REQUEST_BODY, "400", ",\"field\":\"body\"", Map.of());
        gatewayResponse("InvalidParameters", ResponseType.BAD_REQUEST_PARAMETERS, "400", ",\"field\":\"path\"",
                Map.of());
        gatewayResponse("Throttled", ResponseType.THROTTLED, "429", "", Map.of("Retry-After", "'1'"));
        gatewayResponse("Default4xx", ResponseType.DEFAULT_4_XX, null, "", Map.of());
        gatewayResponse("Default5xx", ResponseType.DEFAULT_5_XX, null, "", Map.of());
    }

    private void gatewayResponse(String id, ResponseType type, String statusCode, String extraFields,
                                 Map<String, String> headers) {
        GatewayResponseOptions.Builder options = GatewayResponseOptions.builder()
                .type(type)
                .templates(Map.of(JSON, "{\"error\":$context.error.messageString" + extraFields + "}"));
        if (statusCode != null) {
            options.statusCode(statusCode);
        }
        if (!headers.isEmpty()) {
            options.responseHeaders(headers);
        }
        api.addGatewayResponse(id, options.build());
    }

    /**
     * One JSON object per request: who called (the IAM principal is the tenant), what, the answer,
     * and why API Gateway itself refused, when it did.
     */
    static AccessLogFormat accessLogFormat() {
        return AccessLogFormat.custom("{"
                + "\"requestId\":\"" + AccessLogField.contextRequestId() + "\","
                + "\"requestTime\":\"" + AccessLogField.contextRequestTime() + "\","
                + "\"ip\":\"" + AccessLogField.contextIdentitySourceIp() + "\","
                + "\"caller\":\"" + AccessLogField.contextIdentityCaller() + "\","
                + "\"userArn\":\"" + AccessLogField.contextIdentityUserArn() + "\","
                + "\"httpMethod\":\"" + AccessLogField.contextHttpMethod() + "\","
                + "\"resourcePath\":\"" + AccessLogField.contextResourcePath() + "\","
                + "\"protocol\":\"" + AccessLogField.contextProtocol() + "\","
                + "\"status\":\"" + AccessLogField.contextStatus() + "\","
                + "\"responseLength\":\"" + AccessLogField.contextResponseLength() + "\","
                + "\"integrationLatency\":\"" + AccessLogField.contextIntegrationLatency() + "\","
                + "\"error\":" + AccessLogField.contextErrorMessageString() + ","
                + "\"validationError\":\"" + AccessLogField.contextErrorValidationErrorString() + "\"}");
    }

    public RestApi api() {
        return api;
    }

    public LogGroup accessLogs() {
        return accessLogs;
    }

    public boolean hasWebAcl() {
        return webAcl != null;
    }

    /** The stage URL, e.g. {@code https://abc.execute-api.eu-west-1.amazonaws.com/dev/}: the Java client's base. */
    public String stageUrl() {
        return api.getUrl();
    }

    /** The URL of {@code /v1}, e.g. {@code https://abc.execute-api.eu-west-1.amazonaws.com/dev/v1}. */
    public String baseUrl() {
        return api.urlForPath("/v1");
    }
}
