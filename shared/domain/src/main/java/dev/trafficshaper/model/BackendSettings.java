package dev.trafficshaper.model;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The per-model options that depend on the backend: which service tiers the model offers, the tier
 * the bulk lane is sent with, the native body family of an InvokeModel model, how a bedrock-mantle
 * model authenticates and where it is served, how input tokens are estimated, and the rule for
 * images and documents.
 *
 * @param serviceTiers    tiers a request may ask for; always contains {@link ServiceTier#DEFAULT}
 * @param bulkServiceTier the tier bulk-lane requests are sent with when they name none, or null
 * @param bodyFormat      the native body family (InvokeModel only), or null
 * @param auth            how a bedrock-mantle call is authenticated
 * @param pathPrefix      the bedrock-mantle path prefix ({@code /v1}, {@code /openai/v1},
 *                        {@code /anthropic/v1}), or null for the backend's default
 * @param tokenCounting   how input tokens are estimated at submission
 * @param media           token rule for images and documents
 */
public record BackendSettings(Set<ServiceTier> serviceTiers, ServiceTier bulkServiceTier, NativeBody bodyFormat,
                              MantleAuth auth, String pathPrefix, TokenCounting tokenCounting, MediaRule media) {

    /** How a bedrock-mantle call proves who it is. */
    public enum MantleAuth {
        /** SigV4 with the caller's AWS credentials, service name {@code bedrock-mantle}. */
        SIGV4("sigv4"),
        /** A Bedrock API key as a bearer token, read from {@code AWS_BEARER_TOKEN_BEDROCK}. */
        API_KEY("api-key");

        private final String wireName;

        MantleAuth(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        public static MantleAuth fromWireName(String name) {
            for (MantleAuth auth : values()) {
                if (auth.wireName.equals(name)) {
                    return auth;
                }
            }
            throw new IllegalArgumentException("unknown auth '" + name + "': expected sigv4 or api-key");
        }
    }

    /** How the shaper estimates a request's input tokens before it is sent. */
    public enum TokenCounting {
        /** About four characters per token plus a margin, images and documents by the media rule. */
        CHARACTERS("characters"),
        /** Bedrock's CountTokens API (free, bedrock-runtime models that support it), else characters. */
        COUNT_TOKENS("count-tokens");

        private final String wireName;

        TokenCounting(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        public static TokenCounting fromWireName(String name) {
            for (TokenCounting counting : values()) {
                if (counting.wireName.equals(name)) {
                    return counting;
                }
            }
            throw new IllegalArgumentException("unknown tokenCounting '" + name
                    + "': expected characters or count-tokens");
        }
    }

    public BackendSettings {
        if (serviceTiers == null || auth == null || tokenCounting == null || media == null) {
            throw new IllegalArgumentException("serviceTiers, auth, tokenCounting and media are required");
        }
        EnumSet<ServiceTier> tiers = EnumSet.of(ServiceTier.DEFAULT);
        tiers.addAll(serviceTiers);
        serviceTiers = Set.copyOf(tiers);
        if (bulkServiceTier != null && !serviceTiers.contains(bulkServiceTier)) {
            throw new IllegalArgumentException("bulkServiceTier " + bulkServiceTier.wireName()
                    + " is not among the model's serviceTiers");
        }
    }

    public static BackendSettings defaults() {
        return new BackendSettings(Set.of(ServiceTier.DEFAULT), null, null, MantleAuth.SIGV4, null,
                TokenCounting.CHARACTERS, MediaRule.defaults());
    }

    public boolean offers(ServiceTier tier) {
        return serviceTiers.contains(tier);
    }

    public Optional<ServiceTier> bulkTier() {
        return Optional.ofNullable(bulkServiceTier);
    }

    public BackendSettings withServiceTiers(Set<ServiceTier> tiers, ServiceTier bulk) {
        return new BackendSettings(tiers, bulk, bodyFormat, auth, pathPrefix, tokenCounting, media);
    }

    public BackendSettings withBodyFormat(NativeBody format) {
        return new BackendSettings(serviceTiers, bulkServiceTier, format, auth, pathPrefix, tokenCounting, media);
    }

    public BackendSettings withTokenCounting(TokenCounting counting) {
        return new BackendSettings(serviceTiers, bulkServiceTier, bodyFormat, auth, pathPrefix, counting, media);
    }
}
