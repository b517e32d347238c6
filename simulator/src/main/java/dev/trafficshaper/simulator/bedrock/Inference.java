package dev.trafficshaper.simulator.bedrock;

/**
 * One generation request as the simulator sees it, whatever its wire shape.
 *
 * @param prompt    what the model reads
 * @param maxTokens the request's output allowance, or 0 when it set none (Bedrock then reserves
 *                  the model's maximum)
 */
record Inference(Prompt prompt, long maxTokens) {
}
