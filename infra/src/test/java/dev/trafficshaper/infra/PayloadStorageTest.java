package dev.trafficshaper.infra;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

class PayloadStorageTest {

    private final Template dev = SynthesizedStacks.development().template();

    @Test
    void payloadBucketIsKmsEncryptedPrivateLoggedAndExpiring() {
        dev.hasResourceProperties("AWS::S3::Bucket", Map.of(
                "BucketEncryption", Map.of("ServerSideEncryptionConfiguration", List.of(Match.objectLike(Map.of(
                        "BucketKeyEnabled", true,
                        "ServerSideEncryptionByDefault", Map.of(
                                "SSEAlgorithm", "aws:kms",
                                "KMSMasterKeyID", Map.of("Fn::GetAtt",
                                        List.of(RequestTableTest.keyId(dev), "Arn"))))))),
                "PublicAccessBlockConfiguration", Map.of(
                        "BlockPublicAcls", true, "BlockPublicPolicy", true,
                        "IgnorePublicAcls", true, "RestrictPublicBuckets", true),
                "LoggingConfiguration", Match.objectLike(Map.of("LogFilePrefix", "payloads/")),
                "LifecycleConfiguration", Map.of("Rules", Match.arrayWith(List.of(Match.objectLike(Map.of(
                        "Id", "expire-payloads", "ExpirationInDays", 30, "Status", "Enabled")))))));
    }

    @Test
    void everyBucketRefusesRequestsWithoutTls() {
        dev.resourceCountIs("AWS::S3::BucketPolicy", 2);
        dev.allResourcesProperties("AWS::S3::BucketPolicy", Map.of("PolicyDocument", Map.of(
                "Statement", Match.arrayWith(List.of(Match.objectLike(Map.of(
                        "Effect", "Deny",
                        "Action", "s3:*",
                        "Condition", Map.of("Bool", Map.of("aws:SecureTransport", "false")))))),
                "Version", "2012-10-17")));
    }

    @Test
    void outcomeBusAndWebhookKeyExist() {
        dev.hasResourceProperties("AWS::Events::EventBus", Map.of("Name", "TrafficShaper-dev-outcomes"));
        dev.hasResourceProperties("AWS::SecretsManager::Secret", Map.of(
                "KmsKeyId", Map.of("Fn::GetAtt", List.of(RequestTableTest.keyId(dev), "Arn")),
                "GenerateSecretString", Match.objectLike(Map.of("PasswordLength", 64))));
    }
}
