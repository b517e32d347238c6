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
 * @param dispatchMode   how the drainer sent calls: {@code async} or {@code inline}
 * @param inlineCalls    calls the drainer made itself (inline mode); the rest were dispatched
 * @param dispatched     asynchronous dispatches to the Bedrock Processor (sweeper re-dispatches included)
 * @param drainerSeconds Queue Processor instance time (cold starts included), the billed duration
 * @param processorSeconds Bedrock Processor instance time (cold starts included), the billed duration
 */
public record DrainerActivity(long invocations, long leaseGranted, long handoffs, long crashes, long staleRequeues,
                              long coldStarts, long maxConcurrency, String dispatchMode, long inlineCalls,
                              long dispatched, double drainerSeconds, double processorSeconds) {
}
