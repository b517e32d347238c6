package dev.trafficshaper.infra.api;

import dev.trafficshaper.infra.config.ModelsConfiguration;
import software.amazon.awscdk.services.lambda.IFunction;

/**
 * @param stageName      API Gateway stage, also the deployment stage name
 * @param submit         handles {@code POST /v1/requests}
 * @param status         handles {@code GET /v1/requests/{id}} and {@code GET /v1/models}
 * @param models         the models file, for the request schema
 * @param throttles      the method throttles: submissions, status reads, everything else
 * @param webAcl         whether to attach an AWS WAF web ACL
 * @param production     whether access logs outlive the stack
 */
public record RequestApiProps(
        String stageName,
        IFunction submit,
        IFunction status,
        ModelsConfiguration models,
        FrontDoorThrottles throttles,
        boolean webAcl,
        boolean production) {
}
