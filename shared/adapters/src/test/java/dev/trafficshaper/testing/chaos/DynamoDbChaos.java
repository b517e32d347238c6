package dev.trafficshaper.testing.chaos;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;

/**
 * An interceptor for the adapters' DynamoDB client that throttles a share of the calls and can
 * stop the calling thread at a chosen write, as a process that dies there would.
 *
 * <p>Throttles come in two kinds. A throttled <em>attempt</em> (share {@code attemptShare}) fails
 * one HTTP attempt with {@code ProvisionedThroughputExceededException}; the SDK's retries usually
 * hide it, as they do on AWS. A throttled <em>call</em> (share {@code callShare}) fails at once, as
 * a call whose every retry was throttled: the adapter and the service above it see the exception.
 * Draws come from a counter, not a random source, so a run injects the same faults each time for
 * the same sequence of calls.
 */
public final class DynamoDbChaos implements ExecutionInterceptor {

    private static final ExecutionAttribute<Boolean> DECIDED = new ExecutionAttribute<>("chaos-decided");

    /** What a process that dies at the intercepted write throws: an Error, so nothing on the way catches it. */
    public static final class ProcessKilled extends Error {
        public ProcessKilled(String where) {
            super("killed at " + where);
        }
    }

    private volatile double attemptShare;
    private volatile double callShare;
    private volatile Predicate<SdkRequest> killAt = request -> false;
    private volatile ChaosTally tally;
    private final AtomicInteger draws = new AtomicInteger();
    private final AtomicInteger injected = new AtomicInteger();

    /** Throttles from now on; counts each throttle as a fault of {@code tally}. */
    public void throttle(ChaosTally tally, double attemptShare, double callShare) {
        this.tally = tally;
        this.attemptShare = attemptShare;
        this.callShare = callShare;
    }

    /** Stops the calling thread ({@link ProcessKilled}) at every call {@code where} accepts. */
    public void killAt(ChaosTally tally, Predicate<SdkRequest> where) {
        this.tally = tally;
        this.killAt = where;
    }

    /** No more faults. */
    public void heal() {
        attemptShare = 0;
        callShare = 0;
        killAt = request -> false;
    }

    /** Faults injected so far: throttles and kills. */
    public int injected() {
        return injected.get();
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        SdkRequest request = context.request();
        if (killAt.test(request)) {
            fault();
            throw new ProcessKilled(request.getClass().getSimpleName());
        }
        if (draw(callShare)) {
            fault();
            throw throttle("every retry throttled (injected)");
        }
        attributes.putAttribute(DECIDED, true);
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        if (draw(attemptShare)) {
            fault();
            throw throttle("attempt throttled (injected)");
        }
    }

    private void fault() {
        injected.incrementAndGet();
        ChaosTally current = tally;
        if (current != null) {
            current.fault();
        }
    }

    /** Every {@code 1/share}-th draw, spread evenly (a Weyl sequence on the golden ratio). */
    private boolean draw(double share) {
        if (share <= 0) {
            return false;
        }
        double position = (draws.incrementAndGet() * 0.6180339887498949) % 1.0;
        return position < share;
    }

    private static ProvisionedThroughputExceededException throttle(String message) {
        return (ProvisionedThroughputExceededException) ProvisionedThroughputExceededException.builder()
                .message(message).statusCode(400)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode("ProvisionedThroughputExceededException")
                        .errorMessage(message).serviceName("DynamoDb").build())
                .build();
    }
}
