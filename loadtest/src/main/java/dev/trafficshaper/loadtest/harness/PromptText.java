package dev.trafficshaper.loadtest.harness;

/**
 * Prompts of a chosen size: plain text of which the Bedrock simulator counts exactly the requested
 * number of input tokens (four characters per token plus three for the one user turn). Real models
 * count English text at roughly the same rate, so against Bedrock a prompt is close to its size.
 */
public final class PromptText {

    private static final String OPENING = "Summarise these meeting notes in five bullet points. ";
    private static final String FILLER = "note ";
    private static final int CHARS_PER_TOKEN = 4;
    private static final int TOKENS_PER_MESSAGE = 3;
    /** Below this the opening alone is longer than the prompt. */
    public static final long MINIMUM_TOKENS = TOKENS_PER_MESSAGE + (OPENING.length() + CHARS_PER_TOKEN - 1)
            / CHARS_PER_TOKEN;

    private PromptText() {
    }

    /** One user message counted as {@code max(tokens, MINIMUM_TOKENS)} input tokens. */
    public static String ofTokens(long tokens) {
        long wanted = Math.max(tokens, MINIMUM_TOKENS);
        int chars = Math.toIntExact((wanted - TOKENS_PER_MESSAGE) * CHARS_PER_TOKEN);
        StringBuilder text = new StringBuilder(chars + FILLER.length());
        text.append(OPENING);
        while (text.length() < chars) {
            text.append(FILLER);
        }
        text.setLength(chars);
        return text.toString();
    }
}
