package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

class RequestApiTest {

    private final Template dev = SynthesizedStacks.development().template();

    @Test
    void everyMethodRequiresSigV4() {
        dev.resourceCountIs("AWS::ApiGateway::Method", 3);
        dev.allResourcesProperties("AWS::ApiGateway::Method", Map.of("AuthorizationType", "AWS_IAM"));
    }

    @Test
    void routesReachTheSubmitAndStatusAliases() {
        dev.hasResourceProperties("AWS::ApiGateway::Resource", Map.of("PathPart", "requests"));
        dev.hasResourceProperties("AWS::ApiGateway::Resource", Map.of("PathPart", "{id}"));
        dev.hasResourceProperties("AWS::ApiGateway::Resource", Map.of("PathPart", "models"));
        dev.hasResourceProperties("AWS::ApiGateway::Method", Map.of(
                "HttpMethod", "POST",
                "RequestModels", Map.of("application/json", Match.anyValue()),
                "Integration", Match.objectLike(Map.of("Type", "AWS_PROXY"))));
        assertThat(methodIntegrations("POST")).contains("FunctionsSubmitAlias");
        assertThat(methodIntegrations("GET")).contains("FunctionsStatusAlias").doesNotContain("FunctionsSubmitAlias");
        dev.hasResourceProperties("AWS::ApiGateway::Method", Map.of(
                "HttpMethod", "GET",
                "RequestParameters", Map.of("method.request.path.id", true)));
    }

    @Test
    void bodiesAreValidatedAgainstASchemaThatKnowsTheModels() {
        dev.hasResourceProperties("AWS::ApiGateway::RequestValidator", Map.of(
                "ValidateRequestBody", true, "ValidateRequestParameters", true));
        dev.hasResourceProperties("AWS::ApiGateway::Model", Map.of(
                "ContentType", "application/json",
                "Schema", Match.objectLike(Map.of(
                        "$schema", "http://json-schema.org/draft-04/schema#",
                        "required", List.of("model", "converse"),
                        "additionalProperties", false,
                        "properties", Match.objectLike(Map.of(
                                "model", Map.of("type", "string", "enum", List.of("nova-lite", "claude-sonnet")),
                                "priority", Map.of("type", "string", "enum", List.of("interactive", "bulk")),
                                "deadlineSeconds", Map.of("type", "integer", "minimum", 1, "maximum", 3600)))))));
        dev.hasResourceProperties("AWS::ApiGateway::GatewayResponse", Map.of(
                "ResponseType", "BAD_REQUEST_BODY", "StatusCode", "400"));
    }

    @Test
    void stageIsThrottledTracedAndAccessLogged() {
        dev.hasResourceProperties("AWS::ApiGateway::Stage", Map.of(
                "StageName", "dev",
                "TracingEnabled", true,
                "AccessLogSetting", Match.objectLike(Map.of("DestinationArn", Match.anyValue())),
                "MethodSettings", List.of(Match.objectLike(Map.of(
                        "ThrottlingRateLimit", 100,
                        "ThrottlingBurstLimit", 200,
                        "LoggingLevel", "ERROR",
                        "DataTraceEnabled", false)))));
    }

    @Test
    void webAclIsOptIn() {
        dev.resourceCountIs("AWS::WAFv2::WebACL", 0);
        Template prod = SynthesizedStacks.production().template();
        prod.hasResourceProperties("AWS::WAFv2::WebACL", Map.of(
                "Scope", "REGIONAL",
                "Rules", Match.arrayWith(List.of(Match.objectLike(Map.of(
                        "Name", "rate-limit-per-ip",
                        "Statement", Map.of("RateBasedStatement", Match.objectLike(Map.of(
                                "AggregateKeyType", "IP", "Limit", 30000)))))))));
        prod.resourceCountIs("AWS::WAFv2::WebACLAssociation", 1);
    }

    private String methodIntegrations(String httpMethod) {
        return dev.findResources("AWS::ApiGateway::Method", Map.of("Properties", Map.of("HttpMethod", httpMethod)))
                .values().toString();
    }
}
