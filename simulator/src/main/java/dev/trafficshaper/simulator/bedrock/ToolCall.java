package dev.trafficshaper.simulator.bedrock;

/**
 * A tool call the simulated model answers with.
 *
 * @param inputJson the arguments, a JSON object
 */
record ToolCall(String id, String name, String inputJson) {
}
