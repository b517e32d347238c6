package dev.trafficshaper.infra.api;

import java.util.List;
import software.amazon.awscdk.services.apigateway.Stage;
import software.amazon.awscdk.services.wafv2.CfnWebACL;
import software.amazon.awscdk.services.wafv2.CfnWebACLAssociation;
import software.constructs.Construct;

/**
 * An optional AWS WAF web ACL in front of the API: Amazon's IP reputation and known-bad-inputs
 * rule groups and a per-IP rate limit. The common rule set is left out on purpose: its 8 KB body
 * size rule would block ordinary prompts.
 */
public final class ApiWebAcl extends Construct {

    private static final int WAF_WINDOW_SECONDS = 300;

    private final CfnWebACL webAcl;

    public ApiWebAcl(Construct scope, String id, Stage stage, double apiRateLimit) {
        super(scope, id);
        long perIpLimit = Math.max(100, Math.round(apiRateLimit * WAF_WINDOW_SECONDS));
        this.webAcl = CfnWebACL.Builder.create(this, "WebAcl")
                .scope("REGIONAL")
                .defaultAction(CfnWebACL.DefaultActionProperty.builder()
                        .allow(CfnWebACL.AllowActionProperty.builder().build()).build())
                .visibilityConfig(visibility("traffic-shaper-api"))
                .rules(List.of(
                        managedRule("AWSManagedRulesAmazonIpReputationList", 0),
                        managedRule("AWSManagedRulesKnownBadInputsRuleSet", 1),
                        CfnWebACL.RuleProperty.builder()
                                .name("rate-limit-per-ip")
                                .priority(2)
                                .action(CfnWebACL.RuleActionProperty.builder()
                                        .block(CfnWebACL.BlockActionProperty.builder().build()).build())
                                .statement(CfnWebACL.StatementProperty.builder()
                                        .rateBasedStatement(CfnWebACL.RateBasedStatementProperty.builder()
                                                .aggregateKeyType("IP")
                                                .limit(perIpLimit)
                                                .evaluationWindowSec(WAF_WINDOW_SECONDS)
                                                .build())
                                        .build())
                                .visibilityConfig(visibility("rate-limit-per-ip"))
                                .build()))
                .build();
        CfnWebACLAssociation.Builder.create(this, "Association")
                .resourceArn(stage.getStageArn())
                .webAclArn(webAcl.getAttrArn())
                .build();
    }

    private static CfnWebACL.RuleProperty managedRule(String name, int priority) {
        return CfnWebACL.RuleProperty.builder()
                .name(name)
                .priority(priority)
                .overrideAction(CfnWebACL.OverrideActionProperty.builder().none(java.util.Map.of()).build())
                .statement(CfnWebACL.StatementProperty.builder()
                        .managedRuleGroupStatement(CfnWebACL.ManagedRuleGroupStatementProperty.builder()
                                .vendorName("AWS").name(name).build())
                        .build())
                .visibilityConfig(visibility(name))
                .build();
    }

    private static CfnWebACL.VisibilityConfigProperty visibility(String metricName) {
        return CfnWebACL.VisibilityConfigProperty.builder()
                .cloudWatchMetricsEnabled(true)
                .sampledRequestsEnabled(true)
                .metricName(metricName)
                .build();
    }

    public CfnWebACL webAcl() {
        return webAcl;
    }
}
