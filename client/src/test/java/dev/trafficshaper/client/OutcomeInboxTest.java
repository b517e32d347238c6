package dev.trafficshaper.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class OutcomeInboxTest {

    private static String outcome(String requestId) {
        return "{\"requestId\":\"" + requestId + "\",\"status\":\"FAILED\",\"reason\":\"THROTTLED\",\"httpStatus\":429}";
    }

    @Test
    void everyAwaitOfARequestGetsItsOutcome() {
        OutcomeInbox inbox = OutcomeInbox.create();
        CompletableFuture<RequestStatus> first = inbox.expect("r-1");
        CompletableFuture<RequestStatus> second = inbox.expect("r-1");

        assertThat(inbox.deliverWebhook(outcome("r-1"))).isTrue();

        assertThat(first.join().httpStatus()).isEqualTo(429);
        assertThat(second.join().reason()).contains("THROTTLED");
        assertThat(inbox.waitingCount()).isZero();
    }

    @Test
    void aPendingStatusIsNotAnOutcome() {
        OutcomeInbox inbox = OutcomeInbox.create();
        CompletableFuture<RequestStatus> await = inbox.expect("r-1");

        assertThat(inbox.deliverWebhook("{\"requestId\":\"r-1\",\"status\":\"INVOKING\"}")).isFalse();

        assertThat(await).isNotDone();
    }

    @Test
    void outcomesNobodyAwaitedAreKeptUpToTheLimitOldestDroppedFirst() {
        OutcomeInbox inbox = OutcomeInbox.create(2);
        inbox.deliverWebhook(outcome("a"));
        inbox.deliverWebhook(outcome("b"));
        inbox.deliverWebhook(outcome("c"));

        assertThat(inbox.expect("a")).isNotDone();
        assertThat(inbox.expect("b")).isCompleted();
        assertThat(inbox.expect("c")).isCompleted();
    }

    @Test
    void anEventIsReadFromItsDetailOrAsTheDetailItself() {
        OutcomeInbox inbox = OutcomeInbox.create();
        CompletableFuture<RequestStatus> enveloped = inbox.expect("a");
        CompletableFuture<RequestStatus> bare = inbox.expect("b");

        inbox.deliverEvent("{\"detail-type\":\"Shaped request finished\",\"detail\":" + outcome("a") + "}");
        inbox.deliverEvent(outcome("b"));

        assertThat(enveloped.join().httpStatus()).isEqualTo(429);
        assertThat(bare.join().httpStatus()).isEqualTo(429);
    }

    @Test
    void aBodyThatNamesNoRequestIsRefused() {
        OutcomeInbox inbox = OutcomeInbox.create();

        assertThatThrownBy(() -> inbox.deliverEvent("{\"detail\":{\"status\":\"SUCCEEDED\"}}"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> inbox.deliverWebhook("not json")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OutcomeInbox.create(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
