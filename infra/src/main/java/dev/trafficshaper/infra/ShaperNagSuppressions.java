package dev.trafficshaper.infra;

import dev.trafficshaper.infra.compute.ShaperFunction;
import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import io.github.cdklabs.cdknag.RegexAppliesTo;
import java.util.ArrayList;
import java.util.List;

/**
 * The cdk-nag AWS Solutions findings the shaper accepts, each with the reason it is accepted, and
 * each applied to one of the shaper's own resources (never to the stack or the app), so an app that
 * embeds a {@link TrafficShaper} keeps every finding about its other resources. Everything else the
 * checks report fails the synth and the tests. {@link TrafficShaper} applies them itself; an app
 * only adds the checks ({@code Aspects.of(app).add(new AwsSolutionsChecks())}).
 */
public final class ShaperNagSuppressions {

    static final String XRAY_AND_LOG_DELIVERY = "Resource::* is limited to X-Ray (xray:PutTraceSegments,"
            + " xray:PutTelemetryRecords, xray:GetSampling*) and CloudWatch Logs vended-log delivery actions,"
            + " which do not support resource-level permissions";

    /**
     * The partition as cdk-nag prints it: a reference when the stack's region is unknown, the literal
     * ({@code aws}, {@code aws-cn}, {@code aws-us-gov}) when it is known and partition literals are on.
     */
    private static final String PARTITION = "(<AWS::Partition>|aws|aws-cn|aws-us-gov)";

    private final TrafficShaper stack;

    private ShaperNagSuppressions(TrafficShaper shaper) {
        this.stack = shaper;
    }

    public static ShaperNagSuppressions of(TrafficShaper shaper) {
        return new ShaperNagSuppressions(shaper);
    }

    /** Adds the suppressions to the shaper's resources; call once (the construct does). */
    public void apply() {
        functions();
        stateMachine();
        api();
        NagSuppressions.addResourceSuppressions(stack.functions().bedrockProcessorDeadLetters(), List.of(
                suppress("AwsSolutions-SQS3", "This queue is itself the dead-letter destination of the Bedrock"
                        + " Processor's failed asynchronous invocations")));
        NagSuppressions.addResourceSuppressions(stack.functions().webhookDeadLetters(), List.of(
                suppress("AwsSolutions-SQS3", "This queue is itself the dead-letter queue of the webhook delivery"
                        + " queue; its messages are redriven by an operator")));
        NagSuppressions.addResourceSuppressions(stack.webhookSecret(), List.of(
                suppress("AwsSolutions-SMG4", "The webhook HMAC key is shared with every receiver that verifies"
                        + " signatures; rotating it on a schedule would break them without notice. docs/deploy.md"
                        + " describes rotating it together with the receivers")));
    }

    private void functions() {
        String objects = "/^Resource::<[A-Za-z0-9]*Payloads.*\\.Arn>\\/payloads\\/\\*$/g";
        for (ShaperFunction fn : stack.functions().all()) {
            NagSuppressions.addResourceSuppressions(fn.function(), List.of(
                    suppress("AwsSolutions-L1", "java21 is the newest Java runtime the project targets: the code is"
                            + " compiled for Java 17 and SnapStart is tested on java21; moving to a newer runtime is"
                            + " a deliberate upgrade, not a drift")));
            List<Object> appliesTo = new ArrayList<>(List.of("Resource::*", RegexAppliesTo.builder().regex(objects)
                    .build()));
            if (fn == stack.functions().bedrockProcessor() || fn == stack.functions().queueProcessor()) {
                appliesTo.add(RegexAppliesTo.builder()
                        .regex("/^Resource::arn:" + PARTITION + ":bedrock:\\*::foundation-model\\/.+$/g").build());
            }
            if (fn == stack.functions().submit()) {
                appliesTo.add(RegexAppliesTo.builder()
                        .regex("/^Resource::arn:" + PARTITION + ":states:(<AWS::Region>|[a-z0-9-]+):(<AWS::AccountId>|[0-9]+)"
                                + ":execution:[A-Za-z0-9-]+:\\*$/g")
                        .build());
            }
            NagSuppressions.addResourceSuppressions(fn.role(), List.of(NagPackSuppression.builder()
                    .id("AwsSolutions-IAM5")
                    .reason(XRAY_AND_LOG_DELIVERY + ". <bucket>/payloads/* covers the payload objects, whose keys are"
                            + " request ids and content digests unknown at deploy time. bedrock:*::foundation-model/<id> is the model"
                            + " behind a cross-region inference profile, which Bedrock may serve from any region"
                            + " of the profile; the model id itself is fixed by config/models.json. execution:<state"
                            + " machine>:* are that state machine's executions, one per request, named at submission;"
                            + " Submit reads one (DescribeExecution) only when a re-post meets ExecutionAlreadyExists")
                    .appliesTo(appliesTo)
                    .build()), true);
        }
    }

    private void stateMachine() {
        NagSuppressions.addResourceSuppressions(stack.lifecycle().stateMachine(), List.of(NagPackSuppression.builder()
                .id("AwsSolutions-IAM5")
                .reason(XRAY_AND_LOG_DELIVERY)
                .appliesTo(List.of("Resource::*"))
                .build(),
                suppress("AwsSolutions-SF1", "Logs at level ERROR: a Standard execution's full event history is"
                        + " kept by Step Functions for 90 days, so logging ALL events would pay to ingest the"
                        + " same history again for every request; errors, timeouts and aborts are still logged")),
                true);
    }

    private void api() {
        NagSuppressions.addResourceSuppressions(stack.api().api(), List.of(
                suppress("AwsSolutions-COG4", "Every method uses IAM (SigV4) authorization: callers are AWS"
                        + " principals and the tenant is the authenticated principal, not a Cognito user"),
                NagPackSuppression.builder()
                        .id("AwsSolutions-IAM4")
                        .reason("API Gateway's account-level CloudWatch Logs role; AmazonAPIGatewayPushToCloudWatchLogs"
                                + " is the policy AWS documents for it and grants only log writes")
                        .appliesTo(List.of(RegexAppliesTo.builder().regex("/^Policy::arn:" + PARTITION
                                + ":iam::aws:policy\\/service-role\\/AmazonAPIGatewayPushToCloudWatchLogs$/g").build()))
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
