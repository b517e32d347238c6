package dev.trafficshaper.model;

import dev.trafficshaper.quota.Quota;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.pacing.PacerSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The models the shaper fronts, read from the models file that the CDK app, the local runtime and
 * the Bedrock simulator share. Parsing collects every problem with its JSON path, so one run of a
 * bad file shows all that is wrong with it.
 */
public final class ModelCatalog {

    private static final String DEFAULT_RESOURCE = "default-models.json";
    private static final Set<String> MODEL_FIELDS = Set.of("modelId", "backend", "quotas", "maxTokens",
            "maxInputTokens", "targetUtilization", "shards", "defaultDeadlineSeconds", "maxDeadlineSeconds",
            "fallback", "lanes", "tenantCaps", "description", "serviceTiers", "bulkServiceTier", "bodyFormat", "auth",
            "pathPrefix", "tokenCounting", "media", "headroom", "headroomCeiling",
            "headroomBudget");
    private static final Set<String> MEDIA_FIELDS = Set.of("pixelsPerImageToken", "maxTokensPerImage",
            "tokensPerDocumentPage");
    private static final Set<String> QUOTA_FIELDS = Set.of("tpm", "rpm", "inputTpm", "outputTpm", "outputBurndown");

    private final Map<String, ModelConfig> models;

    private ModelCatalog(Map<String, ModelConfig> models) {
        this.models = models;
    }

    public static ModelCatalog of(Collection<ModelConfig> configs) {
        Map<String, ModelConfig> byKey = new LinkedHashMap<>();
        for (ModelConfig config : configs) {
            if (byKey.put(config.key(), config) != null) {
                throw new InvalidModelsFileException(List.of("models." + config.key() + ": defined twice"));
            }
        }
        List<String> problems = new ArrayList<>();
        byKey.values().forEach(config -> config.fallback().ifPresent(fallback -> {
            ModelConfig target = byKey.get(fallback);
            if (target == null) {
                problems.add("models." + config.key() + ".fallback: unknown model '" + fallback + "'");
            } else if (target.backend() != config.backend()) {
                problems.add("models." + config.key() + ".fallback: model '" + fallback + "' uses backend "
                        + target.backend().wireName() + ", this one " + config.backend().wireName()
                        + "; a request's body is sent unchanged, so its fallback must take the same shape");
            }
        }));
        if (!problems.isEmpty()) {
            throw new InvalidModelsFileException(problems);
        }
        return new ModelCatalog(java.util.Collections.unmodifiableMap(byKey));
    }

    /** The built-in set: the seed experiment's Nova Lite at 4M TPM and a Claude-class model. */
    public static ModelCatalog defaults() {
        try (InputStream in = ModelCatalog.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            return parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static ModelCatalog read(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new InvalidModelsFileException(List.of(file + ": cannot read (" + e.getMessage() + ")"));
        }
    }

    public static ModelCatalog parse(String json) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(json);
        } catch (JsonProcessingException e) {
            throw new InvalidModelsFileException(List.of("not valid JSON: " + e.getOriginalMessage()
                    + " at line " + e.getLocation().getLineNr()));
        }
        List<String> problems = new ArrayList<>();
        JsonNode modelsNode = root == null ? null : root.get("models");
        if (modelsNode == null || !modelsNode.isObject() || modelsNode.isEmpty()) {
            throw new InvalidModelsFileException(List.of("models: an object with at least one model is required"));
        }
        List<ModelConfig> configs = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = modelsNode.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            parseModel(entry.getKey(), entry.getValue(), problems).ifPresent(configs::add);
        }
        if (!problems.isEmpty()) {
            throw new InvalidModelsFileException(problems);
        }
        return of(configs);
    }

    private static Optional<ModelConfig> parseModel(String key, JsonNode node, List<String> problems) {
        String path = "models." + key;
        int before = problems.size();
        if (!node.isObject()) {
            problems.add(path + ": must be an object");
            return Optional.empty();
        }
        unknownFields(node, MODEL_FIELDS, path, problems);
        Fields f = new Fields(node, path, problems);
        String modelId = f.text("modelId", null);
        Backend backend = Backend.CONVERSE;
        String backendName = f.text("backend", "converse");
        try {
            backend = Backend.fromWireName(backendName);
        } catch (IllegalArgumentException e) {
            problems.add(path + ".backend: " + e.getMessage());
        }
        Quota quota = parseQuota(node.get("quotas"), path + ".quotas", problems);
        if (quota != null && backend.isMantle()) {
            if (quota.tpm() > 0 || quota.rpm() > 0) {
                problems.add(path + ".quotas: bedrock-mantle meters inputTpm and outputTpm only (no tpm, no rpm)");
            }
            if (quota.inputTpm() == 0 && quota.outputTpm() == 0) {
                problems.add(path + ".quotas: a bedrock-mantle model needs inputTpm and outputTpm");
            }
            quota = quota.withOutputAllowanceOnInput(true);
        }
        BackendSettings settings = parseBackendSettings(node, backend, path, f, problems);
        long maxTokens = f.positiveLong("maxTokens", 10_000);
        long maxInput = f.positiveLong("maxInputTokens", 300_000);
        int shards = (int) f.positiveLong("shards", 4);
        long defaultDeadline = f.positiveLong("defaultDeadlineSeconds", 900);
        long maxDeadline = f.positiveLong("maxDeadlineSeconds", 3_600);
        String fallback = f.text("fallback", null);
        PacerSettings.Builder pacer = PacerSettings.builder();
        pacer.targetUtilization(f.share("targetUtilization", 0.95));
        pacer.headroom(f.flag("headroom", true));
        pacer.headroomCeiling(f.share("headroomCeiling", 1.0));
        pacer.headroomBudget(f.share("headroomBudget", PacerSettings.defaults().headroomBudget(),
                PacerSettings.MOST_HEADROOM_BUDGET));
        JsonNode lanes = node.get("lanes");
        if (lanes != null) {
            Fields lf = new Fields(lanes, path + ".lanes", problems);
            unknownFields(lanes, Set.of("interactiveReserve", "bulkCap"), path + ".lanes", problems);
            pacer.interactiveReserve(lf.share("interactiveReserve", 0.30)).bulkCap(lf.share("bulkCap", 0.70));
        }
        JsonNode caps = node.get("tenantCaps");
        if (caps != null) {
            Map<String, Double> tenantCaps = new TreeMap<>();
            Fields cf = new Fields(caps, path + ".tenantCaps", problems);
            caps.fieldNames().forEachRemaining(tenant -> tenantCaps.put(tenant, cf.share(tenant, 1.0)));
            pacer.tenantCaps(tenantCaps);
        }
        if (modelId == null) {
            problems.add(path + ".modelId: required");
        }
        if (problems.size() > before || quota == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(new ModelConfig(key, modelId, backend, quota, maxTokens, maxInput, pacer.build(),
                    shards, defaultDeadline, maxDeadline, fallback, settings));
        } catch (IllegalArgumentException e) {
            problems.add(path + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    private static BackendSettings parseBackendSettings(JsonNode node, Backend backend, String path, Fields f,
                                                        List<String> problems) {
        BackendSettings defaults = BackendSettings.defaults();
        java.util.EnumSet<ServiceTier> tiers = java.util.EnumSet.of(ServiceTier.DEFAULT);
        JsonNode tierList = node.get("serviceTiers");
        if (tierList != null && !tierList.isNull()) {
            if (!tierList.isArray()) {
                problems.add(path + ".serviceTiers: must be a list, e.g. [\"default\", \"flex\"]");
            } else {
                for (JsonNode tier : tierList) {
                    try {
                        tiers.add(ServiceTier.fromWireName(tier.asText()));
                    } catch (IllegalArgumentException e) {
                        problems.add(path + ".serviceTiers: " + e.getMessage());
                    }
                }
            }
        }
        if (backend == Backend.MANTLE_MESSAGES && tiers.size() > 1) {
            problems.add(path + ".serviceTiers: the Anthropic Messages API names no Bedrock tier; only default");
        }
        ServiceTier bulk = null;
        String bulkName = f.text("bulkServiceTier", null);
        if (bulkName != null) {
            try {
                bulk = ServiceTier.fromWireName(bulkName);
                if (!tiers.contains(bulk)) {
                    problems.add(path + ".bulkServiceTier: " + bulkName + " is not in serviceTiers " + tiers.stream()
                            .map(ServiceTier::wireName).toList());
                    bulk = null;
                }
            } catch (IllegalArgumentException e) {
                problems.add(path + ".bulkServiceTier: " + e.getMessage());
            }
        }
        NativeBody bodyFormat = null;
        String formatName = f.text("bodyFormat", null);
        if (formatName != null) {
            if (backend != Backend.INVOKE_MODEL) {
                problems.add(path + ".bodyFormat: only for backend invoke-model");
            } else {
                try {
                    bodyFormat = NativeBody.fromWireName(formatName);
                } catch (IllegalArgumentException e) {
                    problems.add(path + ".bodyFormat: " + e.getMessage());
                }
            }
        } else if (backend == Backend.INVOKE_MODEL) {
            String modelId = node.path("modelId").asText("");
            bodyFormat = NativeBody.detect(modelId).orElse(null);
            if (bodyFormat == null && !modelId.isBlank()) {
                problems.add(path + ".bodyFormat: required, since the model id '" + modelId + "' names no known"
                        + " family (anthropic, nova, llama, titan, mistral)");
            }
        }
        BackendSettings.MantleAuth auth = defaults.auth();
        String authName = f.text("auth", null);
        String pathPrefix = f.text("pathPrefix", null);
        if ((authName != null || pathPrefix != null) && !backend.isMantle()) {
            problems.add(path + ": auth and pathPrefix are only for bedrock-mantle backends");
        }
        if (authName != null) {
            try {
                auth = BackendSettings.MantleAuth.fromWireName(authName);
            } catch (IllegalArgumentException e) {
                problems.add(path + ".auth: " + e.getMessage());
            }
        }
        if (pathPrefix != null && !pathPrefix.matches("(/[A-Za-z0-9._-]+)+")) {
            problems.add(path + ".pathPrefix: must be a path such as /v1 or /openai/v1, was '" + pathPrefix + "'");
        }
        BackendSettings.TokenCounting counting = defaults.tokenCounting();
        String countingName = f.text("tokenCounting", null);
        if (countingName != null) {
            try {
                counting = BackendSettings.TokenCounting.fromWireName(countingName);
                if (counting == BackendSettings.TokenCounting.COUNT_TOKENS && backend.isMantle()) {
                    problems.add(path + ".tokenCounting: CountTokens is a bedrock-runtime API; bedrock-mantle"
                            + " models use characters");
                }
            } catch (IllegalArgumentException e) {
                problems.add(path + ".tokenCounting: " + e.getMessage());
            }
        }
        MediaRule media = defaults.media();
        JsonNode mediaNode = node.get("media");
        if (mediaNode != null && !mediaNode.isNull()) {
            unknownFields(mediaNode, MEDIA_FIELDS, path + ".media", problems);
            Fields mf = new Fields(mediaNode, path + ".media", problems);
            media = new MediaRule(mf.positiveLong("pixelsPerImageToken", media.pixelsPerImageToken()),
                    mf.positiveLong("maxTokensPerImage", media.maxTokensPerImage()),
                    mf.positiveLong("tokensPerDocumentPage", media.tokensPerDocumentPage()));
        }
        return new BackendSettings(tiers, bulk, bodyFormat, auth, pathPrefix, counting, media);
    }

    private static Quota parseQuota(JsonNode node, String path, List<String> problems) {
        if (node == null || !node.isObject()) {
            problems.add(path + ": required, e.g. {\"tpm\": 4000000}");
            return null;
        }
        unknownFields(node, QUOTA_FIELDS, path, problems);
        int before = problems.size();
        Fields f = new Fields(node, path, problems);
        long tpm = f.nonNegativeLong("tpm", 0);
        long rpm = f.nonNegativeLong("rpm", 0);
        long inputTpm = f.nonNegativeLong("inputTpm", 0);
        long outputTpm = f.nonNegativeLong("outputTpm", 0);
        long burndown = f.positiveLong("outputBurndown", 1);
        if (problems.size() > before) {
            return null;
        }
        try {
            return new Quota(tpm, rpm, inputTpm, outputTpm, (int) burndown);
        } catch (IllegalArgumentException e) {
            problems.add(path + ": " + e.getMessage());
            return null;
        }
    }

    private static void unknownFields(JsonNode node, Set<String> known, String path, List<String> problems) {
        node.fieldNames().forEachRemaining(name -> {
            if (!known.contains(name)) {
                problems.add(path + "." + name + ": unknown field (known: " + new java.util.TreeSet<>(known) + ")");
            }
        });
    }

    public Optional<ModelConfig> find(String key) {
        return Optional.ofNullable(models.get(key));
    }

    public ModelConfig require(String key) {
        ModelConfig config = models.get(key);
        if (config == null) {
            throw new IllegalArgumentException("unknown model '" + key + "'; configured: " + models.keySet());
        }
        return config;
    }

    public Collection<ModelConfig> all() {
        return models.values();
    }

    /** Reads typed fields of one JSON object, recording a problem per bad field. */
    private record Fields(JsonNode node, String path, List<String> problems) {

        String text(String name, String fallback) {
            JsonNode value = node.get(name);
            if (value == null || value.isNull()) {
                return fallback;
            }
            if (!value.isTextual() || value.asText().isBlank()) {
                problems.add(path + "." + name + ": must be a non-empty string");
                return fallback;
            }
            return value.asText();
        }

        long nonNegativeLong(String name, long fallback) {
            return integer(name, fallback, 0);
        }

        long positiveLong(String name, long fallback) {
            return integer(name, fallback, 1);
        }

        private long integer(String name, long fallback, long minimum) {
            JsonNode value = node.get(name);
            if (value == null || value.isNull()) {
                return fallback;
            }
            if (!value.canConvertToExactIntegral() || !value.canConvertToLong() || value.asLong() < minimum) {
                problems.add(path + "." + name + ": must be an integer >= " + minimum + ", was " + value);
                return fallback;
            }
            return value.asLong();
        }

        boolean flag(String name, boolean fallback) {
            JsonNode value = node.get(name);
            if (value == null || value.isNull()) {
                return fallback;
            }
            if (!value.isBoolean()) {
                problems.add(path + "." + name + ": must be true or false, was " + value);
                return fallback;
            }
            return value.asBoolean();
        }

        double share(String name, double fallback) {
            return share(name, fallback, 1.0);
        }

        /** A share in (0, {@code most}]. */
        double share(String name, double fallback, double most) {
            JsonNode value = node.get(name);
            if (value == null || value.isNull()) {
                return fallback;
            }
            if (!value.isNumber() || value.asDouble() <= 0 || value.asDouble() > most) {
                problems.add(path + "." + name + ": must be a number in (0, " + (most == 1.0 ? "1" : most) + "], was "
                        + value);
                return fallback;
            }
            return value.asDouble();
        }
    }
}
