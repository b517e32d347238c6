package dev.trafficshaper.infra.lifecycle;

import java.util.Map;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.services.events.Rule;
import software.amazon.awscdk.services.events.RuleTargetInput;
import software.amazon.awscdk.services.events.Schedule;
import software.amazon.awscdk.services.events.targets.LambdaFunction;
import software.amazon.awscdk.services.lambda.IFunction;
import software.constructs.Construct;

/**
 * Starts the Queue Processor once a minute. The Budget Manager wakes the drainer on every enqueue
 * and a drainer hands off to its successor, so this is only the safety net that restarts draining
 * if a wake-up was lost; EventBridge cannot fire more often than once a minute anyway.
 */
public final class DrainSchedule extends Construct {

    private final Rule rule;

    public DrainSchedule(Construct scope, String id, IFunction queueProcessor) {
        super(scope, id);
        this.rule = Rule.Builder.create(this, "Rule")
                .description("Safety net: wakes the Queue Processor every minute")
                .schedule(Schedule.rate(Duration.minutes(1)))
                .build();
        rule.addTarget(LambdaFunction.Builder.create(queueProcessor)
                .event(RuleTargetInput.fromObject(Map.of("source", "schedule")))
                .retryAttempts(0)
                .maxEventAge(Duration.minutes(1))
                .build());
    }

    public Rule rule() {
        return rule;
    }
}
