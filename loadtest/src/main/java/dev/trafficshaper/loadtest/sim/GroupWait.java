package dev.trafficshaper.loadtest.sim;

/**
 * How long one group of requests (a lane or a tenant) waited: from arrival to the start of the
 * call that ended it (to its end when no call was made).
 */
public record GroupWait(String group, long requests, long waitP50Ms, long waitP99Ms) {
}
