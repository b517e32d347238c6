package dev.trafficshaper.loadtest.stack;

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
 * The Bedrock resources the direct arms may invoke: the models of the shaper's models file, the
 * same set its Bedrock Processor may call. A plain id is a foundation model in this region; an id
 * with a geography prefix ({@code us.}, {@code eu.}, {@code global.}...) is a cross-region inference
 * profile, which needs the profile here and its foundation model in every region it may route to;
 * a full ARN is taken as given. (The shaper stack applies the same rule to its own role.)
 */
final class BedrockModelArns {

    private static final Pattern INFERENCE_PROFILE = Pattern.compile("(us|eu|apac|jp|au|ca|us-gov|global)\\.(.+)");

    private BedrockModelArns() {
    }

    static List<String> of(Construct scope, Collection<ModelConfig> models) {
        Stack stack = Stack.of(scope);
        Set<String> arns = new LinkedHashSet<>();
        for (ModelConfig model : models) {
            String id = model.modelId();
            Matcher profile = INFERENCE_PROFILE.matcher(id);
            if (id.startsWith("arn:")) {
                arns.add(id);
            } else if (profile.matches()) {
                arns.add(stack.formatArn(ArnComponents.builder().service("bedrock").resource("inference-profile")
                        .resourceName(id).arnFormat(ArnFormat.SLASH_RESOURCE_NAME).build()));
                arns.add(foundationModel(stack, "*", profile.group(2)));
            } else {
                arns.add(foundationModel(stack, stack.getRegion(), id));
            }
        }
        return List.copyOf(arns);
    }

    private static String foundationModel(Stack stack, String region, String modelId) {
        return stack.formatArn(ArnComponents.builder().service("bedrock").region(region).account("")
                .resource("foundation-model").resourceName(modelId).arnFormat(ArnFormat.SLASH_RESOURCE_NAME).build());
    }
}
