package dev.trafficshaper.simulator.bedrock;

import dev.trafficshaper.submission.TokenRule;

/**
 * Deterministic model output of an exact simulated length: four-character words, so that
 * {@link TokenRule} counts the text as exactly the number of tokens it was made for.
 */
final class FillerText {

    private static final String[] WORDS = {"sim ", "the ", "and ", "for ", "you ", "are ", "tok ", "new "};

    private FillerText() {
    }

    static String ofTokens(long tokens) {
        if (tokens > Integer.MAX_VALUE / TokenRule.CHARS_PER_TOKEN) {
            throw new IllegalArgumentException("too many output tokens to generate: " + tokens);
        }
        StringBuilder text = new StringBuilder((int) tokens * TokenRule.CHARS_PER_TOKEN);
        for (long i = 0; i < tokens; i++) {
            text.append(WORDS[(int) (i % WORDS.length)]);
        }
        return text.toString();
    }
}
