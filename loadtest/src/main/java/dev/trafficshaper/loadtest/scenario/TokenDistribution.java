package dev.trafficshaper.loadtest.scenario;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.SplittableRandom;

/**
 * A distribution of token counts: {@code fixed} (value), {@code uniform} (min..max), {@code normal}
 * (mean, stddev, clipped to min..max), {@code log-uniform} (min..max, many small and few large).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TokenDistribution(String distribution, Long value, Long min, Long max, Long mean, Long stddev) {

    public TokenDistribution {
        distribution = distribution == null ? "fixed" : distribution;
        switch (distribution) {
            case "fixed" -> require(value != null && value >= 0, "fixed needs value >= 0");
            case "uniform", "log-uniform" -> require(min != null && max != null && min >= 1 && max >= min,
                    distribution + " needs 1 <= min <= max");
            case "normal" -> require(mean != null && stddev != null && mean >= 0 && stddev >= 0,
                    "normal needs mean and stddev >= 0");
            default -> throw new IllegalArgumentException("unknown distribution '" + distribution
                    + "': expected fixed, uniform, normal or log-uniform");
        }
    }

    public static TokenDistribution fixed(long value) {
        return new TokenDistribution("fixed", value, null, null, null, null);
    }

    public static TokenDistribution normal(long mean, long stddev) {
        return new TokenDistribution("normal", null, null, null, mean, stddev);
    }

    public static TokenDistribution logUniform(long min, long max) {
        return new TokenDistribution("log-uniform", null, min, max, null, null);
    }

    public long sample(SplittableRandom random) {
        return switch (distribution) {
            case "fixed" -> value;
            case "uniform" -> min + random.nextLong(max - min + 1);
            case "log-uniform" -> Math.round(Math.exp(Math.log(min) + random.nextDouble() * Math.log((double) max / min)));
            default -> clip(Math.round(mean + stddev * gaussian(random)));
        };
    }

    public double expectedValue() {
        return switch (distribution) {
            case "fixed" -> value;
            case "uniform" -> (min + max) / 2.0;
            case "log-uniform" -> min.equals(max) ? min : (max - min) / Math.log((double) max / min);
            default -> mean;
        };
    }

    private long clip(long sampled) {
        long low = min == null ? 1 : min;
        long high = max == null ? Long.MAX_VALUE : max;
        return Math.max(low, Math.min(high, sampled));
    }

    /** Box-Muller, so the sequence depends only on the generator's seed. */
    private static double gaussian(SplittableRandom random) {
        double u1 = 1.0 - random.nextDouble();
        double u2 = random.nextDouble();
        return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException("token distribution: " + message);
        }
    }
}
