package dev.trafficshaper.aws.bedrock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.TransientKind;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A 200 whose body is cut off ran on Bedrock: it may not go back to the queue, nor free its charge. */
class RuntimeRepliesTest {

    @Test
    void aSuccessfulAnswerCutOffMidBodyIsABrokenConnectionThatMayHaveRun() {
        byte[] half = "{\"output\":{\"message\":{\"role\":\"assist".getBytes(StandardCharsets.UTF_8);

        BedrockOutcome outcome = RuntimeReplies.outcome(new SignedHttp.Reply(200, Map.of(), half),
                (body, reply) -> { throw new AssertionError("not a whole answer"); });

        assertThat(outcome).isInstanceOfSatisfying(BedrockOutcome.Transient.class, t -> {
            assertThat(t.kind()).isEqualTo(TransientKind.CONNECTION_BROKEN);
            assertThat(t.kind().provesNothingRan()).isFalse();
        });
    }
}
