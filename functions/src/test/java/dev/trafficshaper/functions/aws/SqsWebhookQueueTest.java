package dev.trafficshaper.functions.aws;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SqsWebhookQueueTest {

    @Test
    void aTenantArnIsItsOwnMessageGroup() {
        String tenant = "arn:aws:iam::123456789012:assumed-role/App/session-1";

        assertThat(SqsWebhookQueue.messageGroup(tenant)).isEqualTo(tenant);
    }

    @Test
    void aTenantSqsWouldRefuseAsAGroupIsHashedToOneStableGroup() {
        String longSession = "arn:aws:iam::123456789012:assumed-role/" + "r".repeat(64) + "/" + "s".repeat(64);
        String withSpace = "tenant with space";

        String group = SqsWebhookQueue.messageGroup(longSession);

        assertThat(longSession).hasSizeGreaterThan(SqsWebhookQueue.MAX_GROUP_LENGTH);
        assertThat(group).matches("sha256:[0-9a-f]{64}").isEqualTo(SqsWebhookQueue.messageGroup(longSession));
        assertThat(SqsWebhookQueue.messageGroup(withSpace)).matches("sha256:[0-9a-f]{64}").isNotEqualTo(group);
    }
}
