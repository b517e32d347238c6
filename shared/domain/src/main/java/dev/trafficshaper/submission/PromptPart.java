package dev.trafficshaper.submission;

/**
 * One piece of what a request feeds the model, whatever its wire shape: text, an image, a
 * document, or the point up to which the prompt is to be cached.
 */
public sealed interface PromptPart {

    /** Text the model reads: a message, a system prompt, a tool definition or a tool call's JSON. */
    record Text(String text) implements PromptPart {
    }

    /**
     * An image; {@code bytes} is null when the request only references it (S3, URL, file id), so
     * its size is unknown and the rule's maximum applies.
     */
    record Image(String format, byte[] bytes) implements PromptPart {
    }

    /**
     * A document: a file ({@code bytes}, e.g. a PDF) or inline text ({@code text}); both null when
     * only referenced.
     */
    record Document(String format, byte[] bytes, String text) implements PromptPart {
    }

    /** Everything before this point is a cacheable prefix (Converse cachePoint, Anthropic cache_control). */
    record CachePoint() implements PromptPart {
    }
}
