package dev.trafficshaper.simulator.bedrock;

/**
 * The simulator's tokenizer: about four characters per token, which is the rule of thumb for
 * English text with the common BPE vocabularies. Each block is rounded up on its own and each turn
 * adds a few tokens for its role markers, so a count never drops when text is added.
 *
 * <p>It is deterministic on purpose: tests and load scenarios predict the simulated usage exactly.
 */
final class TokenCounter {

    static final int CHARS_PER_TOKEN = 4;
    static final int TOKENS_PER_MESSAGE = 3;

    private TokenCounter() {
    }

    static long count(Prompt prompt) {
        long tokens = (long) prompt.messages() * TOKENS_PER_MESSAGE;
        for (String block : prompt.blocks()) {
            tokens += text(block);
        }
        return tokens;
    }

    static long text(String text) {
        long chars = text.codePointCount(0, text.length());
        return (chars + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN;
    }
}
