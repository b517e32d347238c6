package dev.trafficshaper.submission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.payload.Payload;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class CharacterTokenEstimatorTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ModelConfig MODEL = ModelConfig.of("nova-lite", "amazon.nova-lite-v1:0",
            Quota.tokensPerMinute(4_000_000));
    private final CharacterTokenEstimator exact = CharacterTokenEstimator.withMargin(0);

    @Test
    void countsFourCharactersPerTokenRoundedUpPerBlockAndThreePerTurn() {
        // "Hello, world" is 12 characters: 3 tokens; "abcde" 2; "a" 1; two turns 6.
        Payload body = converse(List.of(List.of("Hello, world"), List.of("abcde", "a")), null, null);

        assertThat(exact.inputTokens(MODEL, body)).isEqualTo(3 + 2 + 1 + 2 * 3);
    }

    @Test
    void countsCharactersNotBytesOrUtf16Units() {
        // Four emoji are 16 UTF-8 bytes and 8 UTF-16 units, but four characters: one token.
        Payload body = converse(List.of(List.of("\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00")), null, null);

        assertThat(exact.inputTokens(MODEL, body)).isEqualTo(1 + 3);
    }

    @Test
    void countsTheSystemPrompt() {
        Payload without = converse(List.of(List.of("hi")), null, null);
        Payload with = converse(List.of(List.of("hi")), "s".repeat(40), null);

        assertThat(exact.inputTokens(MODEL, with) - exact.inputTokens(MODEL, without)).isEqualTo(10);
    }

    @Test
    void countsEachToolDefinitionBySize() {
        ObjectNode tools = JSON.createObjectNode();
        tools.putArray("tools").addObject().putObject("toolSpec").put("name", "lookup")
                .put("description", "d".repeat(100));
        Payload without = converse(List.of(List.of("hi")), null, null);
        Payload with = converse(List.of(List.of("hi")), null, tools);

        long expected = (tools.get("tools").get(0).toString().length() + 3) / 4;
        assertThat(exact.inputTokens(MODEL, with) - exact.inputTokens(MODEL, without)).isEqualTo(expected);
    }

    @Test
    void countsNonTextBlocksByTheirEncodedSize() {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode content = body.putArray("messages").addObject().put("role", "user").putArray("content");
        ObjectNode image = content.addObject().putObject("image");
        image.put("format", "png");
        image.putObject("source").put("bytes", "A".repeat(4_000));
        body.putObject("inferenceConfig").put("maxTokens", 10);

        assertThat(exact.inputTokens(MODEL, Payload.json(body.toString()))).isGreaterThan(1_000);
    }

    @Test
    void addsTheMarginAndRoundsUp() {
        Payload body = converse(List.of(List.of("x".repeat(400))), null, null); // 100 + 3 = 103 tokens

        assertThat(CharacterTokenEstimator.withMargin(0).inputTokens(MODEL, body)).isEqualTo(103);
        assertThat(CharacterTokenEstimator.defaults().inputTokens(MODEL, body)).isEqualTo(114); // ceil(113.3)
        assertThat(CharacterTokenEstimator.withMargin(0.5).inputTokens(MODEL, body)).isEqualTo(155); // ceil(154.5)
    }

    @Test
    void refusesAMarginOutsideZeroToTwo() {
        assertThatThrownBy(() -> CharacterTokenEstimator.withMargin(-0.01)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CharacterTokenEstimator.withMargin(2.01)).isInstanceOf(IllegalArgumentException.class);
    }

    /** The Bedrock simulator's count: four characters per token per block, rounded up, plus three per turn. */
    private static long simulatorCount(List<List<String>> turns, String system) {
        long tokens = 3L * turns.size();
        for (List<String> turn : turns) {
            for (String block : turn) {
                tokens += (block.codePointCount(0, block.length()) + 3) / 4;
            }
        }
        if (system != null) {
            tokens += (system.codePointCount(0, system.length()) + 3) / 4;
        }
        return tokens;
    }

    @Property(tries = 300)
    void neverEstimatesLessThanTheSimulatorCounts(
            @ForAll @Size(min = 1, max = 6) List<@Size(min = 1, max = 4) List<@StringLength(max = 200) String>> turns,
            @ForAll @StringLength(max = 300) String system,
            @ForAll @DoubleRange(min = 0, max = 2) double margin) {
        Payload body = converse(turns, system.isEmpty() ? null : system, null);

        long estimate = CharacterTokenEstimator.withMargin(margin).inputTokens(MODEL, body);

        assertThat(estimate).isGreaterThanOrEqualTo(simulatorCount(turns, system.isEmpty() ? null : system));
    }

    private static Payload converse(List<List<String>> turns, String system, ObjectNode toolConfig) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode messages = body.putArray("messages");
        for (int i = 0; i < turns.size(); i++) {
            ArrayNode content = messages.addObject().put("role", i % 2 == 0 ? "user" : "assistant")
                    .putArray("content");
            turns.get(i).forEach(text -> content.addObject().put("text", text));
        }
        if (system != null) {
            body.putArray("system").addObject().put("text", system);
        }
        if (toolConfig != null) {
            body.set("toolConfig", toolConfig);
        }
        body.putObject("inferenceConfig").put("maxTokens", 100);
        return Payload.json(body.toString());
    }
}
