package dev.trafficshaper.infra.compute;

import software.amazon.awscdk.Duration;

/**
 * One Lambda function of the shaper: which handler of the functions jar it runs and how it is
 * sized.
 *
 * @param purpose             short name, part of the function name (e.g. {@code queue-processor})
 * @param handlerClass        fully qualified class whose {@code handleRequest} is the entry point
 * @param description         what the function does, shown in the console
 * @param memoryMb            memory, which also sets the CPU share
 * @param timeout             longest single invocation
 * @param reservedConcurrency concurrency reserved (and capped), or null for the shared pool
 */
public record FunctionSpec(
        String purpose,
        String handlerClass,
        String description,
        int memoryMb,
        Duration timeout,
        Integer reservedConcurrency) {

    public String handler() {
        return handlerClass + "::handleRequest";
    }
}
