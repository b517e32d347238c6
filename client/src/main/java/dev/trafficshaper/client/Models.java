package dev.trafficshaper.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The answer of {@code GET /v1/models}: the configured models, their quotas, queue depth and ETA. */
public final class Models {

    private final List<ModelInfo> models;
    private final JsonNode json;

    private Models(List<ModelInfo> models, JsonNode json) {
        this.models = List.copyOf(models);
        this.json = json;
    }

    static Models fromJson(JsonNode json) {
        List<ModelInfo> models = new ArrayList<>();
        for (JsonNode model : json.path("models")) {
            if (model.isObject() && Json.text(model, "key") != null) {
                models.add(new ModelInfo(model));
            }
        }
        return new Models(models, json);
    }

    /** The models in the order the API listed them; entries without a {@code key} are skipped. */
    public List<ModelInfo> models() {
        return models;
    }

    public Optional<ModelInfo> model(String key) {
        return models.stream().filter(m -> m.key().equals(key)).findFirst();
    }

    /** A copy of the whole response body. */
    public JsonNode json() {
        return json.deepCopy();
    }

    @Override
    public String toString() {
        return "Models" + models;
    }
}
