package dev.trafficshaper.submission;

import dev.trafficshaper.model.MediaRule;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * A request's prompt reduced to what token counting needs, in the order the model reads it (tools,
 * system, messages): its parts, how many turns they came in, the tools it offers and the text of
 * its last user turn. The estimator and the Bedrock simulator both count a prompt from this, so a
 * simulated request's usage is what the estimate predicts.
 *
 * @param tools        tools the request offers the model, by name with their input schema as JSON
 * @param lastUserText text of the final message when it is a user turn, else empty
 */
public record PromptContent(List<PromptPart> parts, int turns, List<Tool> tools, String lastUserText) {

    /** A tool the model may call. */
    public record Tool(String name, String inputSchemaJson) {
    }

    public PromptContent {
        parts = List.copyOf(parts);
        tools = List.copyOf(tools);
        lastUserText = lastUserText == null ? "" : lastUserText;
    }

    /** All input tokens by the rule: text at four characters a token, media by {@code rule}, turn markers. */
    public long tokens(MediaRule rule) {
        return TokenRule.count(parts, rule) + (long) turns * TokenRule.TOKENS_PER_TURN;
    }

    public boolean hasCachePoint() {
        return parts.stream().anyMatch(PromptPart.CachePoint.class::isInstance);
    }

    /** Tokens before the last cache point (0 without one). */
    public long cacheablePrefixTokens(MediaRule rule) {
        return TokenRule.count(prefix(), rule);
    }

    /** A digest of the parts before the last cache point, which identifies a cached prefix. */
    public Optional<String> cacheablePrefixKey() {
        if (!hasCachePoint()) {
            return Optional.empty();
        }
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (PromptPart part : prefix()) {
                digest.update(part.getClass().getSimpleName().getBytes(StandardCharsets.UTF_8));
                if (part instanceof PromptPart.Text t) {
                    digest.update(t.text().getBytes(StandardCharsets.UTF_8));
                } else if (part instanceof PromptPart.Image i) {
                    digest.update(i.bytes() == null ? new byte[0] : i.bytes());
                } else if (part instanceof PromptPart.Document d) {
                    digest.update(d.bytes() == null ? new byte[0] : d.bytes());
                    digest.update((d.text() == null ? "" : d.text()).getBytes(StandardCharsets.UTF_8));
                }
                digest.update((byte) 0);
            }
            return Optional.of(HexFormat.of().formatHex(digest.digest()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private List<PromptPart> prefix() {
        int last = -1;
        for (int i = 0; i < parts.size(); i++) {
            if (parts.get(i) instanceof PromptPart.CachePoint) {
                last = i;
            }
        }
        return last < 0 ? List.of() : parts.subList(0, last);
    }
}
