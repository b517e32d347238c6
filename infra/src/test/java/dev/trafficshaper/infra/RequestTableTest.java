package dev.trafficshaper.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

class RequestTableTest {

    private final Template dev = SynthesizedStacks.development().template();

    @Test
    void tableIsOnDemandWithStringKeysAndOneSparseIndexOfUnsettledRequests() {
        dev.resourceCountIs("AWS::DynamoDB::Table", 1);
        dev.hasResourceProperties("AWS::DynamoDB::Table", Map.of(
                "BillingMode", "PAY_PER_REQUEST",
                "KeySchema", List.of(
                        Map.of("AttributeName", "pk", "KeyType", "HASH"),
                        Map.of("AttributeName", "sk", "KeyType", "RANGE")),
                "AttributeDefinitions", Match.arrayWith(List.of(
                        Map.of("AttributeName", "pk", "AttributeType", "S"),
                        Map.of("AttributeName", "sk", "AttributeType", "S"),
                        Map.of("AttributeName", "unsettledPk", "AttributeType", "S"),
                        Map.of("AttributeName", "unsettledSk", "AttributeType", "S"))),
                "GlobalSecondaryIndexes", List.of(Map.of(
                        "IndexName", "unsettled",
                        "KeySchema", List.of(
                                Map.of("AttributeName", "unsettledPk", "KeyType", "HASH"),
                                Map.of("AttributeName", "unsettledSk", "KeyType", "RANGE")),
                        "Projection", Map.of("ProjectionType", "ALL"))),
                "LocalSecondaryIndexes", Match.absent()));
    }

    @Test
    void tableHasPointInTimeRecoveryTtlAndCustomerManagedKey() {
        dev.hasResourceProperties("AWS::DynamoDB::Table", Map.of(
                "PointInTimeRecoverySpecification", Map.of("PointInTimeRecoveryEnabled", true),
                "TimeToLiveSpecification", Map.of("AttributeName", "expiresAt", "Enabled", true),
                "SSESpecification", Map.of(
                        "SSEEnabled", true,
                        "SSEType", "KMS",
                        "KMSMasterKeyId", Map.of("Fn::GetAtt", List.of(keyId(dev), "Arn")))));
        dev.hasResourceProperties("AWS::KMS::Key", Map.of("EnableKeyRotation", true));
    }

    @Test
    void developmentTableCanBeDeletedWithTheStack() {
        dev.hasResource("AWS::DynamoDB::Table", Map.of(
                "DeletionPolicy", "Delete",
                "Properties", Match.objectLike(Map.of("DeletionProtectionEnabled", false))));
    }

    @Test
    void productionTableIsProtectedAndRetained() {
        SynthesizedStacks.production().template().hasResource("AWS::DynamoDB::Table", Map.of(
                "DeletionPolicy", "Retain",
                "UpdateReplacePolicy", "Retain",
                "Properties", Match.objectLike(Map.of("DeletionProtectionEnabled", true))));
    }

    static String keyId(Template template) {
        Map<String, Map<String, Object>> keys = template.findResources("AWS::KMS::Key");
        assertThat(keys).hasSize(1);
        return keys.keySet().iterator().next();
    }
}
