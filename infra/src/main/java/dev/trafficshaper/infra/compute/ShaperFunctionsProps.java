package dev.trafficshaper.infra.compute;

import dev.trafficshaper.infra.config.ModelsConfiguration;
import dev.trafficshaper.infra.config.ResourceNames;
import dev.trafficshaper.infra.config.Stage;
import dev.trafficshaper.infra.storage.PayloadBucket;
import dev.trafficshaper.infra.storage.RequestTable;
import software.amazon.awscdk.services.events.IEventBus;
import software.amazon.awscdk.services.kms.IKey;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.secretsmanager.ISecret;

/**
 * What the shaper's functions are wired to.
 *
 * @param names         physical names of functions and the state machine
 * @param code          the functions jar
 * @param models        the validated models file
 * @param table         the single table
 * @param payloads      the payload bucket
 * @param key           the customer-managed key protecting table, bucket and secret
 * @param eventBus      where terminal outcomes are published
 * @param webhookSecret the HMAC-SHA256 key that signs webhooks
 * @param stage         the deployment stage (log retention, removal policy)
 */
public record ShaperFunctionsProps(
        ResourceNames names,
        Code code,
        ModelsConfiguration models,
        RequestTable table,
        PayloadBucket payloads,
        IKey key,
        IEventBus eventBus,
        ISecret webhookSecret,
        Stage stage) {
}
