package dev.trafficshaper.loadtest.stack;

import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import io.github.cdklabs.cdknag.RegexAppliesTo;
import java.util.List;

/**
 * The cdk-nag AWS Solutions findings this stack accepts, each with its reason; anything else the
 * checks report fails the synth and the tests.
 */
final class LoadTestNagSuppressions {

    private final TrafficShaperLoadTestStack stack;

    LoadTestNagSuppressions(TrafficShaperLoadTestStack stack) {
        this.stack = stack;
    }

    void apply() {
        for (HarnessFunction fn : List.of(stack.worker(), stack.recorder(), stack.reconciler())) {
            NagSuppressions.addResourceSuppressions(fn.function(), List.of(suppress("AwsSolutions-L1",
                    "java21 is the newest Java runtime the project targets: the code is compiled for Java 17 and the"
                            + " shaper's functions run on java21 too; moving on is a deliberate upgrade")));
        }
        String runObjects = "/^Resource::<Results.*\\.Arn>\\/runs\\/\\*.*$/g";
        NagSuppressions.addResourceSuppressions(stack.worker().role(), List.of(NagPackSuppression.builder()
                .id("AwsSolutions-IAM5")
                .reason("runs/*/run.json and runs/*/outcomes/*: run ids are made per run, so the keys are unknown at"
                        + " deploy time. bedrock:*::foundation-model/<id> is the model behind a cross-region inference"
                        + " profile of the models file, which Bedrock may serve from any region of the profile")
                .appliesTo(List.of(RegexAppliesTo.builder().regex(runObjects).build(),
                        RegexAppliesTo.builder()
                                .regex("/^Resource::arn:<AWS::Partition>:bedrock:\\*::foundation-model\\/.+$/g")
                                .build()))
                .build()), true);
        NagSuppressions.addResourceSuppressions(stack.recorder().role(), List.of(NagPackSuppression.builder()
                .id("AwsSolutions-IAM5")
                .reason("runs/*/outcomes/shaper/*: the run id and the batch's object name are made at run time")
                .appliesTo(List.of(RegexAppliesTo.builder().regex(runObjects).build()))
                .build()), true);
        NagSuppressions.addResourceSuppressions(stack.reconciler().role(), List.of(NagPackSuppression.builder()
                .id("AwsSolutions-IAM5")
                .reason("runs/*: the reconcile step reads every object of the run it is given, whose id is made at"
                        + " run time, and writes only under runs/*/report/")
                .appliesTo(List.of(RegexAppliesTo.builder().regex(runObjects).build()))
                .build()), true);
        NagSuppressions.addResourceSuppressions(stack.run(), List.of(NagPackSuppression.builder()
                .id("AwsSolutions-IAM5")
                .reason("Resource::* is limited to X-Ray (xray:PutTraceSegments, xray:PutTelemetryRecords,"
                        + " xray:GetSampling*) and CloudWatch Logs vended-log delivery actions, which do not support"
                        + " resource-level permissions. runs/*/items.json is the run's item list, its id made at run"
                        + " time; execution:<name>/* are the Distributed Map's child executions of this state machine")
                .appliesTo(List.of("Resource::*", RegexAppliesTo.builder().regex(runObjects).build(),
                        RegexAppliesTo.builder().regex("/^Resource::arn:<AWS::Partition>:states:<AWS::Region>:"
                                + "<AWS::AccountId>:execution:.+\\/\\*$/g").build()))
                .build()), true);
        NagSuppressions.addResourceSuppressions(stack.outcomeEventsDeadLetters(), List.of(suppress("AwsSolutions-SQS3",
                "This queue is itself the dead-letter queue of the outcome-event queue")));
    }

    private static NagPackSuppression suppress(String id, String reason) {
        return NagPackSuppression.builder().id(id).reason(reason).build();
    }
}
