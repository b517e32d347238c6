package dev.trafficshaper.infra;

import dev.trafficshaper.infra.compute.ShaperFunction;
import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import io.github.cdklabs.cdknag.RegexAppliesTo;
import java.util.ArrayList;
import java.util.List;

/**
 * The cdk-nag AWS Solutions findings this stack accepts, each with the reason it is accepted.
 * Everything else the checks report fails the synth and the tests.
 */
final class ShaperNagSuppressions {

    static final String XRAY_AND_LOG_DELIVERY = "Resource::* is limited to X-Ray (xray:PutTraceSegments,"
            + " xray:PutTelemetryRecords, xray:GetSampling*) and CloudWatch Logs vended-log delivery actions,"
            + " which do not support resource-level permissions";

    private final TrafficShaperStack stack;

    ShaperNagSuppressions(TrafficShaperStack stack) {
        this.stack = stack;
    }

    void apply() {
        functions();
        stateMachine();
        api();
        NagSuppressions.addResourceSuppressions(stack.functions().bedrockProcessorDeadLetters(), List.of(
                suppress("AwsSolutions-SQS3", "This queue is itself the dead-letter destination of the Bedrock"
                        + " Processor's failed asynchronous invocations")));
        NagSuppressions.addResourceSuppressions(stack.webhookSecret(), List.of(
                suppress("AwsSolutions-SMG4", "The webhook HMAC key is shared with every receiver that verifies"
                        + " signatures; rotating it on a schedule would break them without notice. docs/deploy.md"
                        + " describes rotating it together with the receivers")));
    }

    private void functions() {
        String objects = "/^Resource::<Payloads.*\\.Arn>\\/payloads\\/\\*$/g";
        for (ShaperFunction fn : stack.functions().all()) {
            NagSuppressions.addResourceSuppressions(fn.function(), List.of(
                    suppress("AwsSolutions-L1", "java21 is the newest Java runtime the project targets: the code is"
                            + " compiled for Java 17 and SnapStart is tested on java21; moving to a newer runtime is"
                            + " a deliberate upgrade, not a drift")));
            List<Object> appliesTo = new ArrayList<>(List.of("Resource::*", RegexAppliesTo.builder().regex(objects)
                    .build()));
            if (fn == stack.functions().bedrockProcessor()) {
                appliesTo.add(RegexAppliesTo.builder()
                        .regex("/^Resource::arn:<AWS::Partition>:bedrock:\\*::foundation-model\\/.+$/g").build());
            }
            NagSuppressions.addResourceSuppressions(fn.role(), List.of(NagPackSuppression.builder()
                    .id("AwsSolutions-IAM5")
                    .reason(XRAY_AND_LOG_DELIVERY + ". <bucket>/payloads/* covers the payload objects, whose keys are"
                            + " request ids and content digests unknown at deploy time. bedrock:*::foundation-model/<id> is the model"
                            + " behind a cross-region inference profile, which Bedrock may serve from any region"
                            + " of the profile; the model id itself is fixed by config/models.json")
                    .appliesTo(appliesTo)
                    .build()), true);
        }
    }

    private void stateMachine() {
        NagSuppressions.addResourceSuppressions(stack.lifecycle().stateMachine(), List.of(NagPackSuppression.builder()
                .id("AwsSolutions-IAM5")
                .reason(XRAY_AND_LOG_DELIVERY)
                .appliesTo(List.of("Resource::*"))
                .build()), true);
    }

    private void api() {
        NagSuppressions.addResourceSuppressions(stack.api().api(), List.of(
                suppress("AwsSolutions-COG4", "Every method uses IAM (SigV4) authorization: callers are AWS"
                        + " principals and the tenant is the authenticated principal, not a Cognito user"),
                NagPackSuppression.builder()
                        .id("AwsSolutions-IAM4")
                        .reason("API Gateway's account-level CloudWatch Logs role; AmazonAPIGatewayPushToCloudWatchLogs"
                                + " is the policy AWS documents for it and grants only log writes")
                        .appliesTo(List.of("Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                                + "AmazonAPIGatewayPushToCloudWatchLogs"))
                        .build()), true);
        if (!stack.api().hasWebAcl()) {
            NagSuppressions.addResourceSuppressions(stack.api().api().getDeploymentStage(), List.of(
                    suppress("AwsSolutions-APIG3", "WAF is opt-in (-c webAcl=true): every caller is an"
                            + " authenticated AWS principal and the stage is throttled; a web ACL adds a monthly"
                            + " cost a private deployment may not want")));
        }
    }

    private static NagPackSuppression suppress(String id, String reason) {
        return NagPackSuppression.builder().id(id).reason(reason).build();
    }
}
