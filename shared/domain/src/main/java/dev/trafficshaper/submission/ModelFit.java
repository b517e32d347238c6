package dev.trafficshaper.submission;

import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.model.ServiceTier;

/**
 * Whether a model can take a submission as it is: its backend's shape, an output limit within the
 * model's, a service tier the model offers, and, for a bedrock-mantle body that names its model,
 * that very model. Checked for the model a caller names and again for its fallback, so nothing
 * that will fail for a reason known now waits in a queue first.
 */
public final class ModelFit {

    private ModelFit() {
    }

    /** @throws InvalidSubmissionException naming the field the model cannot take */
    public static void check(ModelConfig model, Submission submission) {
        if (model.backend() != submission.backend()) {
            throw new InvalidSubmissionException(submission.backend().bodyKey(), "model " + model.key()
                    + " (backend " + model.backend().wireName() + ") takes its body under '"
                    + model.backend().bodyKey() + "', not '" + submission.backend().bodyKey() + "'");
        }
        ShapedBody shaped = submission.shaped();
        if (shaped.outputLimit() > model.maxTokensLimit()) {
            throw new InvalidSubmissionException(shaped.outputLimitField(), shaped.outputLimitField() + " "
                    + shaped.outputLimit() + " is over the limit of " + model.maxTokensLimit() + " for model "
                    + model.key());
        }
        ServiceTier tier = shaped.tier();
        if (tier != null && !model.backendSettings().offers(tier)) {
            throw new InvalidSubmissionException(shaped.tierField(), "model " + model.key()
                    + " does not offer service tier " + tier.wireName() + " (it offers "
                    + model.backendSettings().serviceTiers().stream().map(ServiceTier::wireName).sorted().toList()
                    + ")");
        }
        if (shaped.bodyModel() != null && !shaped.bodyModel().equals(model.modelId())) {
            String field = submission.backend().bodyKey() + ".model";
            throw new InvalidSubmissionException(field, field + " names '" + shaped.bodyModel() + "' but model "
                    + model.key() + " is '" + model.modelId() + "'; leave it out and the shaper names the model it"
                    + " routes to");
        }
    }
}
