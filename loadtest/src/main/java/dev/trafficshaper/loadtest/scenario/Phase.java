package dev.trafficshaper.loadtest.scenario;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A stretch of traffic. Arrival patterns:
 * <ul>
 *   <li>{@code burst}: exactly {@code requests} arrivals spread uniformly at random over the phase;
 *   <li>{@code poisson}: random arrivals at {@code rateMultiple} × the quota's worth of requests;
 *   <li>{@code sinusoid}: Poisson arrivals whose rate swings between {@code minMultiple} and
 *       {@code maxMultiple} × quota with period {@code periodSeconds};
 *   <li>{@code idle}: no arrivals.
 * </ul>
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Phase(
        long durationSeconds, String pattern, Integer requests, Double rateMultiple, Double minMultiple,
        Double maxMultiple, Long periodSeconds) {

    public Phase {
        pattern = pattern == null ? "poisson" : pattern;
        if (durationSeconds <= 0) {
            throw new IllegalArgumentException("phase: durationSeconds must be positive");
        }
        switch (pattern) {
            case "burst" -> require(requests != null && requests >= 0, "burst needs requests >= 0");
            case "poisson" -> require(rateMultiple != null && rateMultiple >= 0, "poisson needs rateMultiple >= 0");
            case "sinusoid" -> require(minMultiple != null && maxMultiple != null && periodSeconds != null
                    && minMultiple >= 0 && maxMultiple >= minMultiple && periodSeconds > 0,
                    "sinusoid needs 0 <= minMultiple <= maxMultiple and periodSeconds > 0");
            case "idle" -> { }
            default -> throw new IllegalArgumentException("phase: unknown pattern '" + pattern
                    + "': expected burst, poisson, sinusoid or idle");
        }
    }

    public static Phase burst(long seconds, int requests) {
        return new Phase(seconds, "burst", requests, null, null, null, null);
    }

    public static Phase poisson(long seconds, double rateMultiple) {
        return new Phase(seconds, "poisson", null, rateMultiple, null, null, null);
    }

    public static Phase sinusoid(long seconds, double minMultiple, double maxMultiple, long periodSeconds) {
        return new Phase(seconds, "sinusoid", null, null, minMultiple, maxMultiple, periodSeconds);
    }

    public static Phase idle(long seconds) {
        return new Phase(seconds, "idle", null, null, null, null, null);
    }

    /** Load multiple at a moment {@code t} seconds into the phase (Poisson patterns). */
    double multipleAt(double t) {
        return switch (pattern) {
            case "poisson" -> rateMultiple;
            case "sinusoid" -> minMultiple + (maxMultiple - minMultiple) * (1 - Math.cos(2 * Math.PI * t / periodSeconds)) / 2;
            default -> 0;
        };
    }

    double peakMultiple() {
        return "sinusoid".equals(pattern) ? maxMultiple : multipleAt(0);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException("phase: " + message);
        }
    }
}
