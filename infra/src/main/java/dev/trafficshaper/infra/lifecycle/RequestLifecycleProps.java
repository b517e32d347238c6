package dev.trafficshaper.infra.lifecycle;

import java.nio.file.Path;
import software.amazon.awscdk.services.lambda.IFunction;

/**
 * @param stateMachineName    physical name, known up front so functions can be granted on its ARN
 * @param definitionDirectory the {@code statemachines/} directory
 * @param budgetManager       the Admit task's function (an alias)
 * @param finalizer           the Finalize task's function (an alias)
 * @param longestDeadlineSeconds the longest deadline any model allows
 * @param longestDeadlineModel   the model that allows it, for error messages
 * @param production          whether logs outlive the stack
 */
public record RequestLifecycleProps(
        String stateMachineName,
        Path definitionDirectory,
        IFunction budgetManager,
        IFunction finalizer,
        long longestDeadlineSeconds,
        String longestDeadlineModel,
        boolean production) {
}
