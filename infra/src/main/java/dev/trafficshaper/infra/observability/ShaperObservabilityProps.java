package dev.trafficshaper.infra.observability;

import dev.trafficshaper.infra.compute.ShaperFunctions;
import dev.trafficshaper.infra.config.ModelsConfiguration;
import software.amazon.awscdk.services.apigateway.RestApi;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.kms.IKey;
import software.amazon.awscdk.services.stepfunctions.StateMachine;

/**
 * @param dashboardName the CloudWatch dashboard's name
 * @param models        the models to chart and alarm on, with their quotas
 * @param functions     the shaper's functions (errors, the DLQ)
 * @param stateMachine  the request lifecycle
 * @param api           the HTTP API
 * @param table         the single table (its throttles)
 * @param accountConcurrency the account's Lambda concurrency limit in the region, which the
 *                      concurrency alarm compares the account's running executions with
 * @param key           encrypts the alarm topic
 * @param alarmEmail    subscribed to the alarm topic, or null
 */
public record ShaperObservabilityProps(
        String dashboardName,
        ModelsConfiguration models,
        ShaperFunctions functions,
        StateMachine stateMachine,
        RestApi api,
        ITable table,
        int accountConcurrency,
        IKey key,
        String alarmEmail) {

    public ShaperObservabilityProps {
        if (accountConcurrency < 1) {
            throw new IllegalArgumentException("accountConcurrency must be positive, was " + accountConcurrency);
        }
    }
}
