package dev.trafficshaper.aws.s3;

import java.util.Optional;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Payload bodies too large for a table item, one object each under {@code payloads/}. A PutObject
 * is all or nothing, so a failed upload leaves no partial body. Objects expire by the bucket's
 * lifecycle rule on the {@code payloads/} prefix; readers also check the reference's expiry.
 */
public final class S3PayloadObjects {

    public static final String PREFIX = "payloads/";

    private final S3Client s3;
    private final String bucket;

    private S3PayloadObjects(S3Client s3, String bucket) {
        this.s3 = s3;
        this.bucket = bucket;
    }

    public static S3PayloadObjects create(S3Client s3, String bucket) {
        return new S3PayloadObjects(s3, bucket);
    }

    public void put(String key, byte[] body, String sha256) {
        s3.putObject(b -> b.bucket(bucket).key(PREFIX + key).contentType("application/json")
                .contentLength((long) body.length).metadata(java.util.Map.of("sha256", sha256)),
                RequestBody.fromBytes(body));
    }

    public Optional<byte[]> get(String key) {
        try {
            return Optional.of(s3.getObjectAsBytes(b -> b.bucket(bucket).key(PREFIX + key)).asByteArray());
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            // Without s3:ListBucket (the functions are not granted it), S3 answers a missing key
            // with 403 rather than 404: the body is not there either way.
            if (e.statusCode() == 403) {
                return Optional.empty();
            }
            throw e;
        }
    }
}
