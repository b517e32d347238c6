package dev.trafficshaper.lifecycle;

import static dev.trafficshaper.lifecycle.ShaperFixture.MODEL;
import static dev.trafficshaper.lifecycle.ShaperFixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.pacing.Lane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TicketJsonTest {

    private final ShaperFixture shaper = new ShaperFixture();
    private final Ticket ticket = new Ticket("r1", "acme", MODEL, Lane.BULK, T0, T0 + 60_000, TokenUsage.of(120, 500),
            shaper.storeBody("r1", T0 + 60_000), "https://hooks.example.com/done");

    @Test
    void aTicketSurvivesTheRoundTrip() {
        assertThat(TicketJson.read(TicketJson.write(ticket))).isEqualTo(ticket);
    }

    @Test
    void aTicketWithoutCallbackSurvivesTheRoundTrip() {
        Ticket plain = new Ticket("r1", "acme", MODEL, Lane.INTERACTIVE, T0, T0 + 1, TokenUsage.of(1, 1),
                ticket.payloadRef(), null);

        ObjectNode json = TicketJson.write(plain);

        assertThat(json.has("callbackUrl")).isFalse();
        assertThat(TicketJson.read(json)).isEqualTo(plain);
    }

    @Test
    void keepsTheFieldNamesTheStateMachineReads() {
        ObjectNode json = TicketJson.write(ticket);

        assertThat(json.fieldNames()).toIterable().containsExactlyInAnyOrder("requestId", "tenant", "model",
                "priority", "submittedAt", "deadlineAt", "estimate", "payload", "callbackUrl");
        assertThat(json.get("priority").asText()).isEqualTo("bulk");
        assertThat(json.get("deadlineAt").asLong()).isEqualTo(T0 + 60_000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"requestId", "tenant", "model", "priority", "submittedAt", "deadlineAt", "estimate",
            "payload"})
    void aMissingFieldIsNamed(String field) {
        ObjectNode json = TicketJson.write(ticket);
        json.remove(field);

        assertThatThrownBy(() -> TicketJson.read(json)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(field);
    }

    @Test
    void aNumberThatIsNotOneIsRefused() {
        ObjectNode json = TicketJson.write(ticket);
        json.put("deadlineAt", "soon");

        assertThatThrownBy(() -> TicketJson.read(json)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deadlineAt must be a number");
    }
}
