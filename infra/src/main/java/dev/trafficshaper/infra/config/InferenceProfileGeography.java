package dev.trafficshaper.infra.config;

import dev.trafficshaper.model.ModelConfig;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * Refuses, at synth, a cross-region inference profile that the deployment's region cannot call.
 * A geographic profile ({@code us.}, {@code eu.}, …) is invocable only from source regions of its
 * geography, and Bedrock says so only at the first call, with a {@code ValidationException} for
 * every request; {@code global.} profiles are invocable from any commercial region. A model id
 * without one of these prefixes is a foundation model id (e.g. {@code amazon.nova-lite-v1:0}) and
 * is not checked here.
 *
 * <p>Geographies, as the Bedrock cross-region inference documentation names them: {@code us.}
 * (us-*, GovCloud excluded), {@code us-gov.} (us-gov-*), {@code eu.} (eu-*), {@code apac.} (ap-*
 * and me-central-1), {@code jp.} (ap-northeast-1, ap-northeast-3), {@code au.} (ap-southeast-2,
 * ap-southeast-4), {@code global.} (anywhere).
 */
public final class InferenceProfileGeography {

    private record Geography(String prefix, String where, Predicate<String> contains) {
    }

    private static final List<Geography> GEOGRAPHIES = List.of(
            new Geography("us-gov.", "a GovCloud (US) region (us-gov-*)", region -> region.startsWith("us-gov-")),
            new Geography("us.", "a US region (us-*)", region -> region.startsWith("us-")
                    && !region.startsWith("us-gov-")),
            new Geography("eu.", "a European region (eu-*)", region -> region.startsWith("eu-")),
            new Geography("apac.", "an Asia Pacific region (ap-*, me-central-1)", region -> region.startsWith("ap-")
                    || region.equals("me-central-1")),
            new Geography("jp.", "ap-northeast-1 or ap-northeast-3", region -> region.equals("ap-northeast-1")
                    || region.equals("ap-northeast-3")),
            new Geography("au.", "ap-southeast-2 or ap-southeast-4", region -> region.equals("ap-southeast-2")
                    || region.equals("ap-southeast-4")),
            new Geography("global.", "any region", region -> true));

    private InferenceProfileGeography() {
    }

    /**
     * @param region the stack's region, e.g. {@code eu-west-1}
     * @throws InvalidDeploymentException naming the model and the regions its profile needs
     */
    public static void check(ModelsConfiguration models, String region) {
        String normalized = region.toLowerCase(Locale.ROOT);
        for (ModelConfig model : models.models()) {
            String modelId = model.modelId().toLowerCase(Locale.ROOT);
            for (Geography geography : GEOGRAPHIES) {
                if (modelId.startsWith(geography.prefix())) {
                    if (!geography.contains().test(normalized)) {
                        throw new InvalidDeploymentException("model " + model.key() + ": " + model.modelId() + " is a '"
                                + geography.prefix() + "' cross-region inference profile, which Bedrock serves only to"
                                + " callers in " + geography.where() + ", but the stack deploys to " + region
                                + "; use the profile of this region's geography or a 'global.' profile");
                    }
                    break;
                }
            }
        }
    }
}
