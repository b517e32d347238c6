package dev.trafficshaper.infra.compute;

import java.util.List;
import software.amazon.awscdk.Duration;

/**
 * One Lambda function of the shaper: which handler of the functions jar it runs, how it is sized,
 * and which environment variables its code path reads.
 *
 * @param purpose             short name, part of the function name (e.g. {@code queue-processor})
 * @param handlerClass        fully qualified class whose {@code handleRequest} is the entry point
 * @param description         what the function does, shown in the console
 * @param memoryMb            memory, which also sets the CPU share
 * @param timeout             longest single invocation
 * @param reservedConcurrency concurrency reserved (and capped), or null for the shared pool
 * @param variables           environment variables the handler's code path reads besides the ones
 *                            every function reads ({@link ShaperFunctions#COMMON_VARIABLES})
 */
public record FunctionSpec(
        String purpose,
        String handlerClass,
        String description,
        int memoryMb,
        Duration timeout,
        Integer reservedConcurrency,
        List<String> variables) {

    public FunctionSpec {
        variables = List.copyOf(variables);
    }

    public String handler() {
        return handlerClass + "::handleRequest";
    }

    public FunctionSpec withReservedConcurrency(int value) {
        return new FunctionSpec(purpose, handlerClass, description, memoryMb, timeout, value, variables);
    }
}
