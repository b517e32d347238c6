package dev.trafficshaper.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * One configured model as {@code GET /v1/models} describes it. Fields the API left out read as
 * empty; {@link #json()} keeps everything it sent.
 */
public final class ModelInfo {

    private final JsonNode json;

    ModelInfo(JsonNode json) {
        this.json = json;
    }

    /** The model key requests name in {@code model}. */
    public String key() {
        return Json.text(json, "key");
    }

    /** The Bedrock model id (or inference profile) requests are sent to. */
    public Optional<String> modelId() {
        return Optional.ofNullable(Json.text(json, "modelId"));
    }

    /** A copy of the quota object ({@code tpm}, {@code rpm}, {@code inputTpm}, {@code outputTpm}...). */
    public JsonNode quota() {
        return json.path("quota").deepCopy();
    }

    /** One quota value, e.g. {@code quotaValue("tpm")}, if the API gave it as a number. */
    public OptionalLong quotaValue(String name) {
        JsonNode value = json.path("quota").path(name);
        return value.isNumber() ? OptionalLong.of(value.asLong()) : OptionalLong.empty();
    }

    /** The share of the quota the shaper aims to use, between 0 and 1. */
    public OptionalDouble targetUtilization() {
        return doubleField("targetUtilization");
    }

    /** Requests waiting in the model's queue. */
    public OptionalLong queueDepth() {
        return Json.hasNumber(json, "queueDepth") ? OptionalLong.of(json.path("queueDepth").asLong())
                : OptionalLong.empty();
    }

    /** The expected wait, in seconds, of a request submitted now. */
    public OptionalDouble etaSeconds() {
        return doubleField("etaSeconds");
    }

    /** A copy of this model's entry as the API sent it. */
    public JsonNode json() {
        return json.deepCopy();
    }

    private OptionalDouble doubleField(String name) {
        return Json.hasNumber(json, name) ? OptionalDouble.of(json.path(name).asDouble()) : OptionalDouble.empty();
    }

    @Override
    public String toString() {
        return "ModelInfo" + json;
    }
}
