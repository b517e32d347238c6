package dev.trafficshaper.submission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.payload.Payload;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The fast heuristic: about four characters per token for every text block (messages, system
 * prompt, tool definitions), a few tokens per turn for role markers, and a safety margin on top.
 *
 * <p>Why a margin and not an exact tokenizer: Bedrock's tokenizers differ per model and are not
 * available offline; a call to CountTokens per request costs a round trip and its own quota. Four
 * characters per token is the usual rule of thumb for English with BPE vocabularies; the margin
 * (default 10%) absorbs text that tokenizes worse (code, other scripts) at the price of a little
 * idle quota, which the settlement returns.
 *
 * <p>Non-text blocks (images, documents) are charged by their encoded size at the same rate,
 * which overestimates them; that is the safe direction.
 */
public final class CharacterTokenEstimator implements TokenEstimator {

    static final int CHARS_PER_TOKEN = 4;
    static final int TOKENS_PER_TURN = 3;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final double margin;

    private CharacterTokenEstimator(double margin) {
        if (margin < 0 || margin > 2) {
            throw new IllegalArgumentException("margin must be in [0, 2], was " + margin);
        }
        this.margin = margin;
    }

    public static CharacterTokenEstimator withMargin(double margin) {
        return new CharacterTokenEstimator(margin);
    }

    public static CharacterTokenEstimator defaults() {
        return new CharacterTokenEstimator(0.10);
    }

    @Override
    public long inputTokens(ModelConfig model, Payload converse) {
        JsonNode body;
        try {
            body = JSON.readTree(converse.bytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long tokens = 0;
        JsonNode messages = body.path("messages");
        for (JsonNode message : messages) {
            tokens += TOKENS_PER_TURN + contentTokens(message.path("content"));
        }
        tokens += contentTokens(body.path("system"));
        if (body.has("toolConfig")) {
            tokens += chars(body.get("toolConfig").toString());
        }
        return (long) Math.ceil(tokens * (1 + margin));
    }

    private static long contentTokens(JsonNode blocks) {
        long tokens = 0;
        for (JsonNode block : blocks) {
            JsonNode text = block.get("text");
            tokens += text != null && text.isTextual() ? chars(text.asText()) : chars(block.toString());
        }
        return tokens;
    }

    private static long chars(String text) {
        long count = text.codePointCount(0, text.length());
        return (count + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN;
    }
}
