package dev.trafficshaper.simulator.bedrock;

import dev.trafficshaper.submission.PromptContent;

/**
 * One generation request as the simulator sees it, whatever its wire shape.
 *
 * @param prompt          what the model reads, in the shaper's own terms, so both count alike
 * @param maxTokens       the request's output allowance, or 0 when it set none (Bedrock then
 *                        reserves the model's maximum)
 * @param automaticCache  whether a repeated prefix is cached without being marked (the OpenAI
 *                        APIs, from 1,024 tokens on) rather than at explicit cache points
 */
record Inference(PromptContent prompt, long maxTokens, boolean automaticCache) {

    Inference(PromptContent prompt, long maxTokens) {
        this(prompt, maxTokens, false);
    }
}
