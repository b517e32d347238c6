package dev.trafficshaper.submission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.payload.Payload;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The fast heuristic for every request shape: {@link TokenRule} over the prompt
 * {@link PromptReaders} reads (text at about four characters a token, tool definitions and tool
 * results as their text, images and documents by the model's {@code media} rule, a few tokens
 * per turn), and a safety margin on top. Cached prefixes are counted in full: Bedrock reserves
 * cache reads and writes like input and releases the reads at settlement.
 *
 * <p>Why a margin and not an exact tokenizer: Bedrock's tokenizers differ per model and are not
 * available offline; a call to CountTokens per request costs a round trip (the
 * {@code tokenCounting: count-tokens} option makes it). Four characters per token is the usual
 * rule of thumb for English with BPE vocabularies; the margin (default 10%) absorbs text that
 * tokenizes worse (code, other scripts) at the price of a little idle quota, which the settlement
 * returns.
 */
public final class CharacterTokenEstimator implements TokenEstimator {

    static final int CHARS_PER_TOKEN = TokenRule.CHARS_PER_TOKEN;
    static final int TOKENS_PER_TURN = TokenRule.TOKENS_PER_TURN;
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
    public long inputTokens(ModelConfig model, Payload body) {
        JsonNode root;
        try {
            root = JSON.readTree(body.bytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long tokens = PromptReaders.read(model, root).tokens(model.backendSettings().media());
        return (long) Math.ceil(tokens * (1 + margin));
    }
}
