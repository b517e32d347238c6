package dev.trafficshaper.infra.compute;

import dev.trafficshaper.model.ModelConfig;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.ArnFormat;
import software.amazon.awscdk.Stack;
import software.constructs.Construct;

/**
 * The Bedrock resources the Bedrock Processor may invoke: exactly the bedrock-runtime models in
 * the models file (Converse and InvokeModel both need {@code bedrock:InvokeModel}), and for
 * bedrock-mantle models the account's projects in the region, since bedrock-mantle authorizes
 * {@code bedrock-mantle:CreateInference} on the project a call runs in (the default one unless it
 * names another).
 *
 * <p>A plain model id is a foundation model in the stack's region. An id with a geography prefix
 * ({@code us.}, {@code eu.}, {@code global.}…) is a cross-region inference profile: invoking it
 * needs the profile in this region and the underlying foundation model in every region the
 * profile may route to, which is why that one ARN has a wildcard region. A full ARN is taken as
 * given (provisioned throughput, application inference profiles).
 */
final class BedrockModelArns {

    private static final Pattern INFERENCE_PROFILE =
            Pattern.compile("(us|eu|apac|jp|au|ca|us-gov|global)\\.(.+)");

    private BedrockModelArns() {
    }

    static List<String> of(Construct scope, Collection<ModelConfig> models) {
        Stack stack = Stack.of(scope);
        Set<String> arns = new LinkedHashSet<>();
        for (ModelConfig model : models) {
            if (model.backend().isMantle()) {
                continue;
            }
            String id = model.modelId();
            Matcher profile = INFERENCE_PROFILE.matcher(id);
            if (id.startsWith("arn:")) {
                arns.add(id);
            } else if (profile.matches()) {
                arns.add(stack.formatArn(ArnComponents.builder()
                        .service("bedrock").resource("inference-profile").resourceName(id)
                        .arnFormat(ArnFormat.SLASH_RESOURCE_NAME).build()));
                arns.add(foundationModel(stack, "*", profile.group(2)));
            } else {
                arns.add(foundationModel(stack, stack.getRegion(), id));
            }
        }
        return List.copyOf(arns);
    }

    static boolean usesMantle(Collection<ModelConfig> models) {
        return models.stream().anyMatch(model -> model.backend().isMantle());
    }

    static String mantleProjects(Construct scope) {
        return Stack.of(scope).formatArn(ArnComponents.builder().service("bedrock-mantle").resource("project")
                .resourceName("*").arnFormat(ArnFormat.SLASH_RESOURCE_NAME).build());
    }

    static boolean usesInferenceProfile(Collection<ModelConfig> models) {
        return models.stream().anyMatch(model -> !model.backend().isMantle()
                && INFERENCE_PROFILE.matcher(model.modelId()).matches());
    }

    private static String foundationModel(Stack stack, String region, String modelId) {
        return stack.formatArn(ArnComponents.builder()
                .service("bedrock").region(region).account("").resource("foundation-model").resourceName(modelId)
                .arnFormat(ArnFormat.SLASH_RESOURCE_NAME).build());
    }
}
