package dev.trafficshaper.loadtest.sim;

/**
 * What the production drainer's surroundings did in one run of the {@code shaper} strategy.
 *
 * @param invocations    Queue Processor invocations (wakes, handoffs, the safety net)
 * @param leaseGranted   those that got the lease and drained
 * @param handoffs       drains that stopped at their time limit and woke a successor
 * @param crashes        drainers that died holding the lease
 * @param staleRequeues  admissions sent back because their call would have started too late
 * @param coldStarts     Bedrock Processor instances started
 * @param maxConcurrency most Bedrock Processor instances busy at once
 */
public record DrainerActivity(long invocations, long leaseGranted, long handoffs, long crashes, long staleRequeues,
                              long coldStarts, long maxConcurrency) {
}
