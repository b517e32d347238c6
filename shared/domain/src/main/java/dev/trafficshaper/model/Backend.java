package dev.trafficshaper.model;

/** Which Bedrock Runtime operation serves a model. */
public enum Backend {
    /** The Converse API: one request shape for every model that supports it. */
    CONVERSE("converse"),
    /** InvokeModel with the model's native body, for models Converse does not serve. */
    INVOKE_MODEL("invoke-model");

    private final String wireName;

    Backend(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Backend fromWireName(String name) {
        for (Backend backend : values()) {
            if (backend.wireName.equals(name)) {
                return backend;
            }
        }
        throw new IllegalArgumentException("unknown backend '" + name + "': expected converse or invoke-model");
    }
}
