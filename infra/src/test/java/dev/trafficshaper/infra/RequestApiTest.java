package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
                        "required", List.of("model"),
                        "oneOf", List.of(Map.of("required", List.of("converse")), Map.of("required", List.of("invokeModel")),
                                Map.of("required", List.of("chatCompletions")), Map.of("required", List.of("responses")),
                                Map.of("required", List.of("messages"))),
                        "additionalProperties", false,
                        "properties", Match.objectLike(Map.of(
                                "model", Map.of("type", "string", "enum", List.of("nova-lite", "claude-sonnet")),
                                "requestId", Map.of("type", List.of("string", "null"),
                                        "pattern", "^[A-Za-z0-9._~-]{1,128}$"),
                                "deadlineSeconds", Map.of("type", List.of("integer", "null"), "minimum", 1,
                                        "maximum", 3600)))))));
    }

    @Test
    void everyErrorApiGatewayAnswersItselfIsJsonWithAnErrorField() throws Exception {
        Map<String, Map<String, Object>> responses = dev.findResources("AWS::ApiGateway::GatewayResponse");
        Map<String, Object> byType = new java.util.HashMap<>();
        responses.values().forEach(resource -> {
            @SuppressWarnings("unchecked")
            Map<String, Object> properties = (Map<String, Object>) resource.get("Properties");
            byType.put(properties.get("ResponseType").toString(), properties);
        });
        assertThat(byType).containsOnlyKeys("BAD_REQUEST_BODY", "BAD_REQUEST_PARAMETERS", "THROTTLED", "DEFAULT_4XX",
                "DEFAULT_5XX");
        ObjectMapper json = new ObjectMapper();
        for (Map.Entry<String, Object> entry : byType.entrySet()) {
            @SuppressWarnings("unchecked")
            Map<String, Object> properties = (Map<String, Object>) entry.getValue();
            @SuppressWarnings("unchecked")
            String template = ((Map<String, String>) properties.get("ResponseTemplates")).get("application/json");
            // $context.error.messageString is the message as a quoted JSON string.
            JsonNode body = json.readTree(template.replace("$context.error.messageString",
                    "\"Invalid request body\""));
            assertThat(body.get("error").asText()).as(entry.getKey()).isEqualTo("Invalid request body");
        }
        dev.hasResourceProperties("AWS::ApiGateway::GatewayResponse", Map.of(
                "ResponseType", "BAD_REQUEST_BODY", "StatusCode", "400",
                "ResponseTemplates", Map.of("application/json", "{\"error\":$context.error.messageString,\"field\":\"body\"}")));
        dev.hasResourceProperties("AWS::ApiGateway::GatewayResponse", Map.of(
                "ResponseType", "THROTTLED", "StatusCode", "429",
                "ResponseParameters", Map.of("gatewayresponse.header.Retry-After", "'1'")));
    }

    @Test
    void accessLogsAreJsonWithTheCallerAndWhyApiGatewayRefused() throws Exception {
        String format = dev.findResources("AWS::ApiGateway::Stage").values().stream()
                .map(stage -> ((Map<?, ?>) ((Map<?, ?>) stage.get("Properties")).get("AccessLogSetting")).get("Format"))
                .findFirst().orElseThrow().toString();
        JsonNode fields = new ObjectMapper().readTree(format.replace("$context.error.messageString", "\"m\""));
        assertThat(fields.get("userArn").asText()).isEqualTo("$context.identity.userArn");
        assertThat(fields.get("validationError").asText()).isEqualTo("$context.error.validationErrorString");
        assertThat(fields.get("status").asText()).isEqualTo("$context.status");
    }

    @Test
    void stageIsTracedAndAccessLogged() {
        dev.hasResourceProperties("AWS::ApiGateway::Stage", Map.of(
                "StageName", "dev",
                "TracingEnabled", true,
                "AccessLogSetting", Match.objectLike(Map.of("DestinationArn", Match.anyValue()))));
    }

    @Test
    void submissionsAndStatusReadsHaveDistinctThrottlesSizedFromTheQuotasTheyFeed() {
        methodSetting(Map.of("HttpMethod", "POST", "ResourcePath", "/~1v1~1requests",
                "ThrottlingRateLimit", 270, "ThrottlingBurstLimit", 337));
        methodSetting(Map.of("HttpMethod", "GET", "ResourcePath", "/~1v1~1requests~1{id}",
                "ThrottlingRateLimit", 1350, "ThrottlingBurstLimit", 2700));
        methodSetting(Map.of("HttpMethod", "*", "ResourcePath", "/*", "ThrottlingRateLimit", 25,
                "ThrottlingBurstLimit", 50, "LoggingLevel", "ERROR", "DataTraceEnabled", false));
    }

    private void methodSetting(Map<String, Object> setting) {
        dev.hasResourceProperties("AWS::ApiGateway::Stage", Map.of(
                "MethodSettings", Match.arrayWith(List.of(Match.objectLike(setting)))));
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
                                "AggregateKeyType", "IP", "Limit", (270 + 1350 + 25) * 300)))))))));
        prod.resourceCountIs("AWS::WAFv2::WebACLAssociation", 1);
    }

    @Test
    void outputsGiveTheApiBaseForAwscurlAndTheStageUrlForTheJavaClient() {
        dev.hasOutput("ApiUrl", Map.of("Value", Match.objectLike(Map.of("Fn::Join", Match.arrayWith(List.of(
                Match.arrayWith(List.of(Match.stringLikeRegexp(".*/v1")))))))));
        dev.hasOutput("ApiStageUrl", Map.of("Value", Match.anyValue()));
        dev.hasOutput("WebhookSecretArn", Map.of("Value", Match.anyValue()));
    }

    private String methodIntegrations(String httpMethod) {
        return dev.findResources("AWS::ApiGateway::Method", Map.of("Properties", Map.of("HttpMethod", httpMethod)))
                .values().toString();
    }
}
