package dev.trafficshaper.loadtest.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The demo's workload, identical for every arm: each request's arrival offset and prompt, drawn
 * from the seed. Prompts are plain text sized so that the Bedrock simulator counts exactly the
 * drawn number of input tokens (four characters per token plus three per message).
 */
public final class Burst {

    /** One request of the burst. */
    public record Request(int index, long arrivalOffsetMillis, long inputTokens, String prompt) {
    }

    private static final String OPENING = "Summarise these meeting notes in five bullet points. ";
    private static final String FILLER_WORD = "note ";
    private static final int CHARS_PER_TOKEN = 4;
    private static final int TOKENS_PER_MESSAGE = 3;

    private final List<Request> requests;

    private Burst(List<Request> requests) {
        this.requests = List.copyOf(requests);
    }

    public static Burst generate(DemoSettings settings) {
        SplittableRandom random = new SplittableRandom(settings.seed());
        long window = settings.arrivalWindow().toMillis();
        List<Long> arrivals = new ArrayList<>();
        for (int i = 0; i < settings.requests(); i++) {
            arrivals.add(window == 0 ? 0 : random.nextLong(window));
        }
        arrivals.sort(null);
        List<Request> requests = new ArrayList<>();
        long minimum = TOKENS_PER_MESSAGE + (OPENING.length() + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN;
        for (int i = 0; i < settings.requests(); i++) {
            double gaussian = nextGaussian(random);
            long tokens = Math.max(minimum,
                    Math.round(settings.meanInputTokens() + gaussian * settings.inputStddevTokens()));
            requests.add(new Request(i, arrivals.get(i), tokens, prompt(tokens)));
        }
        return new Burst(requests);
    }

    public List<Request> requests() {
        return requests;
    }

    public int size() {
        return requests.size();
    }

    /** Text the simulator counts as exactly {@code tokens} input tokens in one user message. */
    static String prompt(long tokens) {
        int chars = Math.toIntExact((tokens - TOKENS_PER_MESSAGE) * CHARS_PER_TOKEN);
        StringBuilder text = new StringBuilder(chars + FILLER_WORD.length());
        text.append(OPENING);
        while (text.length() < chars) {
            text.append(FILLER_WORD);
        }
        text.setLength(chars);
        return text.toString();
    }

    private static double nextGaussian(SplittableRandom random) {
        // Box-Muller: SplittableRandom has no nextGaussian on Java 17.
        double u = 1.0 - random.nextDouble();
        double v = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
}
