package dev.trafficshaper.bedrock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.bedrock.BedrockOutcome.Failure;
import dev.trafficshaper.bedrock.BedrockOutcome.Rejected;
import dev.trafficshaper.bedrock.BedrockOutcome.Throttled;
import dev.trafficshaper.bedrock.BedrockOutcome.Transient;
import dev.trafficshaper.request.FailureReason;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OutcomeClassifierTest {

    private static final Instant DEADLINE = Instant.parse("2025-01-01T00:01:00Z");

    /** The error table: code, Bedrock status, class, kind, retryable, status the API reports. */
    @ParameterizedTest(name = "{0} {1} -> {2} {3}")
    @CsvSource({
            "ThrottlingException,           429, throttled, -,                      true,  429",
            "ModelNotReadyException,        429, transient, MODEL_NOT_READY,        true,  503",
            "ServiceUnavailableException,   503, transient, SERVICE_UNAVAILABLE,    true,  503",
            "InternalServerException,       500, transient, INTERNAL_SERVER,        true,  503",
            "ModelTimeoutException,         408, transient, MODEL_TIMEOUT,          false, 504",
            "ModelErrorException,           424, transient, MODEL_ERROR,            false, 504",
            "ModelStreamErrorException,     424, transient, MODEL_ERROR,            false, 504",
            "ValidationException,           400, rejected,  VALIDATION,             false, 400",
            "ServiceQuotaExceededException, 400, rejected,  SERVICE_QUOTA_EXCEEDED, false, 429",
            "AccessDeniedException,         403, rejected,  ACCESS_DENIED,          false, 503",
            "ResourceNotFoundException,     404, rejected,  RESOURCE_NOT_FOUND,     false, 503",
    })
    void eachBedrockErrorFallsInItsClass(String code, int status, String outcomeClass, String kind,
                                         boolean retryable, int reportedStatus) {
        Failure failure = OutcomeClassifier.classify(code, status, "boom");

        assertClass(failure, outcomeClass, kind);
        assertThat(failure.retryable()).isEqualTo(retryable);
        assertThat(failure.httpStatus()).isEqualTo(status);
        assertThat(failure.message()).isEqualTo("boom");
        assertThat(failure.failureReason().httpStatus()).isEqualTo(reportedStatus);
    }

    @ParameterizedTest(name = "unknown code with {0} -> {1}")
    @CsvSource({
            "429, throttled, -",
            "408, transient, OTHER_SERVER_ERROR",
            "424, transient, OTHER_SERVER_ERROR",
            "500, transient, OTHER_SERVER_ERROR",
            "502, transient, OTHER_SERVER_ERROR",
            "504, transient, OTHER_SERVER_ERROR",
            "400, rejected,  OTHER_CLIENT_ERROR",
            "413, rejected,  OTHER_CLIENT_ERROR",
    })
    void anUnknownCodeIsClassifiedByItsStatus(int status, String outcomeClass, String kind) {
        assertClass(OutcomeClassifier.classify("SomethingNewException", status, "?"), outcomeClass, kind);
        assertClass(OutcomeClassifier.classify(null, status, "?"), outcomeClass, kind);
    }

    @Test
    void theCodeDecidesOverTheStatus() {
        // Both 429: only the throttle says the quota was exceeded.
        assertThat(OutcomeClassifier.classify("ThrottlingException", 429, "")).isInstanceOf(Throttled.class);
        assertThat(OutcomeClassifier.classify("ModelNotReadyException", 429, "")).isInstanceOf(Transient.class);
        // A known non-retryable code stays non-retryable whatever status a proxy put on it.
        assertThat(OutcomeClassifier.classify("ValidationException", 500, "")).isInstanceOf(Rejected.class);
    }

    @Test
    void namespacedCodesAreRecognised() {
        assertThat(OutcomeClassifier.classify("com.amazon.bedrock#ThrottlingException", 429, ""))
                .isInstanceOf(Throttled.class);
        assertThat(OutcomeClassifier.classify("ValidationException:http://internal.amazon.com/", 400, ""))
                .isEqualTo(new Rejected(RejectionKind.VALIDATION, 400, ""));
    }

    @Test
    void clientSideFailuresAreTransientWithoutAStatus() {
        assertThat(OutcomeClassifier.clientTimeout("slow"))
                .isEqualTo(new Transient(TransientKind.CLIENT_TIMEOUT, 0, "slow"));
        assertThat(OutcomeClassifier.connectionFailure(new java.io.IOException("reset")))
                .isEqualTo(new Transient(TransientKind.CONNECTION_BROKEN, 0, "reset"));
        assertThat(OutcomeClassifier.connectionFailure(
                new IllegalStateException("wrapped", new java.net.ConnectException("refused"))))
                .isEqualTo(new Transient(TransientKind.CONNECTION_REFUSED, 0, "wrapped"));
        assertThat(OutcomeClassifier.connectionFailure(new java.net.UnknownHostException("nowhere")).kind())
                .isEqualTo(TransientKind.CONNECTION_REFUSED);
    }

    @Test
    void onlyFailuresThatProveBedrockDidNothingMayBeSentAgain() {
        assertThat(OutcomeClassifier.clientTimeout("slow").retryable()).isFalse();
        assertThat(OutcomeClassifier.clientTimeout("slow").failureReason()).isEqualTo(FailureReason.MODEL_TIMEOUT);
        assertThat(FailureReason.MODEL_TIMEOUT.httpStatus()).isEqualTo(504);
        assertThat(OutcomeClassifier.connectionFailure(new java.io.IOException("reset")).retryable()).isFalse();
        assertThat(OutcomeClassifier.classify("ModelTimeoutException", 408, "").retryable()).isFalse();
        assertThat(OutcomeClassifier.classify("ModelErrorException", 424, "").retryable()).isFalse();
        assertThat(OutcomeClassifier.classify("ServiceUnavailableException", 503, "").retryable()).isTrue();
        assertThat(OutcomeClassifier.classify("InternalServerException", 500, "").retryable()).isTrue();
        assertThat(OutcomeClassifier.classify("ModelNotReadyException", 429, "").retryable()).isTrue();
        assertThat(OutcomeClassifier.classify("ServiceUnavailableException", 503, "").failureReason())
                .isEqualTo(FailureReason.DEPENDENCY_ERROR);
        assertThat(OutcomeClassifier.connectionFailure(new java.net.ConnectException("refused")).retryable())
                .isTrue();
    }

    @Test
    void aRequestTheShaperCannotSendIsInvalid() {
        Rejected invalid = OutcomeClassifier.invalidRequest("messages must be a non-empty array");

        assertThat(invalid.kind()).isEqualTo(RejectionKind.VALIDATION);
        assertThat(invalid.retryable()).isFalse();
        assertThat(invalid.failureReason()).isEqualTo(FailureReason.INVALID_REQUEST);
        assertThat(invalid.failureReason().httpStatus()).isEqualTo(400);
    }

    @Test
    void aRetryableFailureAtTheDeadlineIsReportedAsAnExpiredDeadline() {
        Instant before = DEADLINE.minusMillis(1);

        assertThat(new Throttled("").failureReasonAt(before, DEADLINE)).isEqualTo(FailureReason.THROTTLED);
        assertThat(new Throttled("").failureReasonAt(DEADLINE, DEADLINE)).isEqualTo(FailureReason.DEADLINE_EXPIRED);
        assertThat(OutcomeClassifier.classify("InternalServerException", 500, "")
                .failureReasonAt(DEADLINE.plusSeconds(1), DEADLINE)).isEqualTo(FailureReason.DEADLINE_EXPIRED);
        assertThat(OutcomeClassifier.clientTimeout("").failureReasonAt(DEADLINE.plusSeconds(1), DEADLINE))
                .as("a call that may have run says so, whenever it ends").isEqualTo(FailureReason.MODEL_TIMEOUT);
        assertThat(FailureReason.DEADLINE_EXPIRED.httpStatus()).isEqualTo(504);
    }

    @Test
    void aNonRetryableFailureKeepsItsReasonAfterTheDeadline() {
        Failure invalid = OutcomeClassifier.classify("ValidationException", 400, "");

        assertThat(invalid.failureReasonAt(DEADLINE.plusSeconds(1), DEADLINE))
                .isEqualTo(FailureReason.INVALID_REQUEST);
    }

    private static void assertClass(Failure failure, String outcomeClass, String kind) {
        switch (outcomeClass) {
            case "throttled" -> assertThat(failure).isInstanceOf(Throttled.class);
            case "transient" -> assertThat(failure).isInstanceOfSatisfying(Transient.class,
                    t -> assertThat(t.kind()).isEqualTo(TransientKind.valueOf(kind)));
            case "rejected" -> assertThat(failure).isInstanceOfSatisfying(Rejected.class,
                    r -> assertThat(r.kind()).isEqualTo(RejectionKind.valueOf(kind)));
            default -> throw new IllegalArgumentException(outcomeClass);
        }
    }
}
