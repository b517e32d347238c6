package dev.trafficshaper.infra.api;

import java.util.List;
import java.util.Map;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.apigateway.AccessLogFormat;
import software.amazon.awscdk.services.apigateway.AuthorizationType;
import software.amazon.awscdk.services.apigateway.EndpointType;
import software.amazon.awscdk.services.apigateway.GatewayResponseOptions;
import software.amazon.awscdk.services.apigateway.JsonWithStandardFieldProps;
import software.amazon.awscdk.services.apigateway.LambdaIntegration;
import software.amazon.awscdk.services.apigateway.LogGroupLogDestination;
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
 * Bodies are checked against {@link RequestSchema} before a function runs; a stage-wide rate
 * limit protects the Step Functions {@code StartExecution} quota.
 */
public final class RequestApi extends Construct {

    private static final String JSON = "application/json";

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
                        .throttlingRateLimit(props.rateLimit())
                        .throttlingBurstLimit(props.burstLimit())
                        .loggingLevel(MethodLoggingLevel.ERROR)
                        .dataTraceEnabled(false)
                        .metricsEnabled(true)
                        .tracingEnabled(true)
                        .accessLogDestination(new LogGroupLogDestination(accessLogs))
                        .accessLogFormat(AccessLogFormat.jsonWithStandardFields(JsonWithStandardFieldProps.builder()
                                .caller(true).httpMethod(true).ip(true).protocol(true).requestTime(true)
                                .resourcePath(true).responseLength(true).status(true).user(true)
                                .build()))
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

        api.addGatewayResponse("InvalidBody", GatewayResponseOptions.builder()
                .type(ResponseType.BAD_REQUEST_BODY)
                .statusCode("400")
                .templates(Map.of(JSON,
                        "{\"error\":\"$context.error.validationErrorString\",\"field\":\"body\"}"))
                .build());
        api.addGatewayResponse("InvalidParameters", GatewayResponseOptions.builder()
                .type(ResponseType.BAD_REQUEST_PARAMETERS)
                .statusCode("400")
                .templates(Map.of(JSON, "{\"error\":\"$context.error.messageString\",\"field\":\"path\"}"))
                .build());

        this.webAcl = props.webAcl() ? new ApiWebAcl(this, "WebAcl", api.getDeploymentStage(),
                props.rateLimit()) : null;
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

    /** The URL of {@code /v1}, e.g. {@code https://abc.execute-api.eu-west-1.amazonaws.com/dev/v1}. */
    public String baseUrl() {
        return api.urlForPath("/v1");
    }
}
