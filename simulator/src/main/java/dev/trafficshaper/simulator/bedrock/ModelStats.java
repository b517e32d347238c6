package dev.trafficshaper.simulator.bedrock;

/**
 * What one simulated model has served so far. {@code calls} counts every Converse and InvokeModel
 * request addressed to the model; each ends as exactly one of success, throttle or error.
 */
public record ModelStats(String key, String modelId, long calls, long successes, long throttles, long errors,
                         long inputTokens, long outputTokens, long countTokensCalls) {

    public static ModelStats sum(String key, Iterable<ModelStats> all) {
        long calls = 0, successes = 0, throttles = 0, errors = 0, input = 0, output = 0, counts = 0;
        for (ModelStats s : all) {
            calls += s.calls;
            successes += s.successes;
            throttles += s.throttles;
            errors += s.errors;
            input += s.inputTokens;
            output += s.outputTokens;
            counts += s.countTokensCalls;
        }
        return new ModelStats(key, "", calls, successes, throttles, errors, input, output, counts);
    }
}
