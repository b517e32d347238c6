package dev.trafficshaper.infra.storage;

import java.util.List;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.kms.IKey;
import software.amazon.awscdk.services.s3.BlockPublicAccess;
import software.amazon.awscdk.services.s3.Bucket;
import software.amazon.awscdk.services.s3.BucketEncryption;
import software.amazon.awscdk.services.s3.LifecycleRule;
import software.amazon.awscdk.services.s3.ObjectOwnership;
import software.constructs.Construct;

/**
 * Prompts and model responses, stored by reference so a request is not bound by the 256 KB Step
 * Functions payload limit. Objects expire after the retention period; access is logged to a
 * second bucket that keeps its logs longer. Outside production both buckets are deleted with the
 * stack, which CloudFormation does only once they are empty.
 */
public final class PayloadBucket extends Construct {

    private static final int ACCESS_LOG_RETENTION_DAYS = 90;

    private final Bucket bucket;
    private final Bucket accessLogs;

    public PayloadBucket(Construct scope, String id, IKey key, int retentionDays, boolean production) {
        super(scope, id);
        RemovalPolicy removal = production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
        this.accessLogs = Bucket.Builder.create(this, "AccessLogs")
                .encryption(BucketEncryption.S3_MANAGED)
                .blockPublicAccess(BlockPublicAccess.BLOCK_ALL)
                .enforceSsl(true)
                .objectOwnership(ObjectOwnership.BUCKET_OWNER_PREFERRED)
                .lifecycleRules(List.of(LifecycleRule.builder()
                        .id("expire-access-logs")
                        .expiration(Duration.days(ACCESS_LOG_RETENTION_DAYS))
                        .build()))
                .removalPolicy(removal)
                .build();
        this.bucket = Bucket.Builder.create(this, "Bucket")
                .encryption(BucketEncryption.KMS)
                .encryptionKey(key)
                .bucketKeyEnabled(true)
                .blockPublicAccess(BlockPublicAccess.BLOCK_ALL)
                .enforceSsl(true)
                .objectOwnership(ObjectOwnership.BUCKET_OWNER_ENFORCED)
                .serverAccessLogsBucket(accessLogs)
                .serverAccessLogsPrefix("payloads/")
                .lifecycleRules(List.of(LifecycleRule.builder()
                        .id("expire-payloads")
                        .expiration(Duration.days(retentionDays))
                        .abortIncompleteMultipartUploadAfter(Duration.days(1))
                        .build()))
                .removalPolicy(removal)
                .build();
    }

    public Bucket bucket() {
        return bucket;
    }

    public Bucket accessLogs() {
        return accessLogs;
    }

    public String bucketName() {
        return bucket.getBucketName();
    }

    /**
     * Every object under {@code prefix} (e.g. {@code payloads/}): keys are request ids and content
     * digests, unknown at deploy time.
     */
    public String objectsArn(String prefix) {
        return bucket.arnForObjects(prefix + "*");
    }
}
