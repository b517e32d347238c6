package dev.trafficshaper.client.aws;

import dev.trafficshaper.client.RequestSigner;
import dev.trafficshaper.client.SignableRequest;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;

/**
 * Signs requests with AWS Signature Version 4 for the deployed API, which uses IAM authorization
 * (service {@value #SERVICE_NAME}). The caller's identity is the tenant, so every request must be
 * signed, polls included.
 *
 * <p>Needs {@code software.amazon.awssdk:http-auth-aws} and {@code software.amazon.awssdk:auth} on
 * the class path; the client declares them optional. Credentials are resolved on every request, so
 * a provider that refreshes (roles, SSO, container credentials) keeps working.
 */
public final class AwsSigV4Signer implements RequestSigner {

    public static final String SERVICE_NAME = "execute-api";

    /** The JDK sets these itself and refuses them from the caller; it sends the values signed here. */
    private static final Set<String> SET_BY_TRANSPORT = Set.of("host", "content-length");

    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();
    private final String region;
    private final AwsCredentialsProvider credentials;
    private final String serviceName;
    private final Clock clock;

    private AwsSigV4Signer(Builder builder) {
        this.region = builder.region;
        this.credentials = builder.credentials != null ? builder.credentials
                : DefaultCredentialsProvider.builder().build();
        this.serviceName = builder.serviceName;
        this.clock = builder.clock;
    }

    /** Signs for {@code region} with the default credentials chain (environment, profile, role...). */
    public static AwsSigV4Signer create(String region) {
        return builder().region(region).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Map<String, String> sign(SignableRequest request) {
        SdkHttpRequest.Builder unsigned = SdkHttpRequest.builder()
                .method(SdkHttpMethod.fromValue(request.method()))
                .uri(request.uri());
        request.headers().forEach(unsigned::putHeader);
        byte[] body = request.body();
        SignedRequest signed = signer.sign(r -> r
                .identity(credentials.resolveCredentials())
                .request(unsigned.build())
                .payload(body.length == 0 ? null : ContentStreamProvider.fromByteArray(body))
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, serviceName)
                .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                .putProperty(HttpSigner.SIGNING_CLOCK, clock));

        Map<String, String> added = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> header : signed.request().headers().entrySet()) {
            String name = header.getKey();
            String value = String.join(",", header.getValue());
            if (!SET_BY_TRANSPORT.contains(name.toLowerCase(Locale.ROOT))
                    && !value.equals(request.headers().get(name))) {
                added.put(name, value);
            }
        }
        return added;
    }

    @Override
    public String toString() {
        return "AwsSigV4Signer[" + serviceName + " " + region + "]";
    }

    public static final class Builder {
        private String region;
        private AwsCredentialsProvider credentials;
        private String serviceName = SERVICE_NAME;
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        /** The API's region, e.g. {@code eu-west-1}. Required. */
        public Builder region(String region) {
            this.region = region;
            return this;
        }

        /** Default: the SDK's default credentials chain. */
        public Builder credentialsProvider(AwsCredentialsProvider credentials) {
            this.credentials = credentials;
            return this;
        }

        /** Default {@value AwsSigV4Signer#SERVICE_NAME}. */
        public Builder serviceName(String serviceName) {
            this.serviceName = serviceName;
            return this;
        }

        /** The time written into {@code X-Amz-Date}; a fixed clock makes signatures reproducible. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public AwsSigV4Signer build() {
            if (region == null || region.isBlank()) {
                throw new IllegalArgumentException("region is required");
            }
            if (serviceName == null || serviceName.isBlank()) {
                throw new IllegalArgumentException("serviceName is required");
            }
            Objects.requireNonNull(clock, "clock");
            return new AwsSigV4Signer(this);
        }
    }
}
