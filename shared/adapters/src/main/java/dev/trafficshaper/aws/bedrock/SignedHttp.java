package dev.trafficshaper.aws.bedrock;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;

/**
 * One HTTP POST of a body exactly as given, signed with the SDK's SigV4 signer (or carrying a
 * Bedrock API key as a bearer token) and sent with the SDK's HTTP client, once: there is no retry
 * here, by design. A call that outlasts its timeout is aborted.
 */
final class SignedHttp {

    /** How the request proves who sent it. */
    interface Auth {
        SdkHttpRequest apply(SdkHttpRequest request, byte[] body);
    }

    private final SdkHttpClient http;
    private final Auth auth;
    private final ScheduledExecutorService timer;

    SignedHttp(SdkHttpClient http, Auth auth, ScheduledExecutorService timer) {
        this.http = http;
        this.auth = auth;
        this.timer = timer;
    }

    static Auth sigV4(IdentityProvider<? extends AwsCredentialsIdentity> credentials, String region,
                      String signingName) {
        AwsV4HttpSigner signer = AwsV4HttpSigner.create();
        return (request, body) -> {
            AwsCredentialsIdentity identity = credentials.resolveIdentity().join();
            SignedRequest signed = signer.sign(r -> r.identity(identity).request(request)
                    .payload(ContentStreamProvider.fromByteArray(body))
                    .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, signingName)
                    .putProperty(AwsV4HttpSigner.REGION_NAME, region));
            return signed.request();
        };
    }

    static Auth bearer(Supplier<String> token) {
        return (request, body) -> request.toBuilder().putHeader("Authorization", "Bearer " + token.get()).build();
    }

    /** The answer, whatever its status. */
    record Reply(int status, Map<String, List<String>> headers, byte[] body) {

        Optional<String> header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .flatMap(e -> e.getValue().stream()).findFirst();
        }
    }

    /** The call did not complete within its timeout. */
    static final class TimedOut extends IOException {
        TimedOut(String message) {
            super(message);
        }
    }

    /**
     * @throws TimedOut    when no complete answer arrived within {@code timeout}
     * @throws IOException when the connection failed or broke
     */
    Reply post(URI uri, byte[] body, Map<String, String> headers, Duration timeout) throws IOException {
        SdkHttpRequest.Builder unsigned = SdkHttpRequest.builder().method(SdkHttpMethod.POST).uri(uri)
                .putHeader("Content-Type", "application/json").putHeader("Accept", "application/json")
                .putHeader("Content-Length", Integer.toString(body.length));
        headers.forEach(unsigned::putHeader);
        SdkHttpRequest request = auth.apply(unsigned.build(), body);
        ExecutableHttpRequest call = http.prepareRequest(HttpExecuteRequest.builder().request(request)
                .contentStreamProvider(ContentStreamProvider.fromByteArray(body)).build());
        AtomicBoolean aborted = new AtomicBoolean();
        ScheduledFuture<?> deadline = timer.schedule(() -> {
            aborted.set(true);
            call.abort();
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        try {
            HttpExecuteResponse response = call.call();
            byte[] bytes;
            Optional<? extends InputStream> stream = response.responseBody();
            try (InputStream in = stream.isPresent() ? stream.get() : InputStream.nullInputStream()) {
                bytes = in.readAllBytes();
            }
            return new Reply(response.httpResponse().statusCode(), response.httpResponse().headers(), bytes);
        } catch (InterruptedIOException e) {
            throw new TimedOut("no answer within " + timeout.toMillis() + " ms: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            if (aborted.get()) {
                throw new TimedOut("no answer within " + timeout.toMillis() + " ms");
            }
            if (e instanceof IOException io) {
                throw io;
            }
            throw new IOException(e.getMessage(), e);
        } finally {
            deadline.cancel(false);
        }
    }
}
