package dev.trafficshaper.loadtest.aws;

import dev.trafficshaper.loadtest.harness.ObjectStore;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/** A run's files under an S3 prefix, e.g. {@code s3://bucket/runs/<id>/}. */
public final class S3ObjectStore implements ObjectStore {

    private final S3Client s3;
    private final String bucket;
    private final String prefix;

    /** @param prefix the run's root, ending in {@code /} (or empty for the bucket's root) */
    public S3ObjectStore(S3Client s3, String bucket, String prefix) {
        if (bucket == null || bucket.isBlank()) {
            throw new IllegalArgumentException("bucket is required");
        }
        this.s3 = s3;
        this.bucket = bucket;
        this.prefix = prefix == null || prefix.isEmpty() || prefix.endsWith("/") ? (prefix == null ? "" : prefix)
                : prefix + "/";
    }

    /** {@code s3://bucket/some/prefix/} as bucket and prefix. */
    public static S3ObjectStore at(S3Client s3, URI location) {
        if (!"s3".equals(location.getScheme()) || location.getHost() == null) {
            throw new IllegalArgumentException("not an s3://bucket/prefix URI: " + location);
        }
        String path = location.getPath() == null ? "" : location.getPath();
        return new S3ObjectStore(s3, location.getHost(), path.startsWith("/") ? path.substring(1) : path);
    }

    @Override
    public void put(String key, byte[] bytes) {
        s3.putObject(r -> r.bucket(bucket).key(prefix + key).contentType(contentType(key)), RequestBody.fromBytes(bytes));
    }

    @Override
    public Optional<byte[]> get(String key) {
        try {
            return Optional.of(s3.getObjectAsBytes(r -> r.bucket(bucket).key(prefix + key)).asByteArray());
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<String> list(String keyPrefix) {
        List<String> keys = new ArrayList<>();
        ListObjectsV2Request request = ListObjectsV2Request.builder().bucket(bucket).prefix(prefix + keyPrefix).build();
        for (S3Object object : s3.listObjectsV2Paginator(request).contents()) {
            keys.add(object.key().substring(prefix.length()));
        }
        keys.sort(null);
        return keys;
    }

    @Override
    public String describe() {
        return "s3://" + bucket + "/" + prefix;
    }

    private static String contentType(String key) {
        return key.endsWith(".json") ? "application/json" : key.endsWith(".jsonl") ? "application/x-ndjson"
                : "application/octet-stream";
    }
}
