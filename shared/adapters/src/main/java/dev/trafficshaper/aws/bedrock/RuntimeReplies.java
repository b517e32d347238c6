package dev.trafficshaper.aws.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.OutcomeClassifier;
import java.util.function.BiFunction;

/** bedrock-runtime's restJson1 answers: a 200 with the operation's JSON, or an error by its code. */
final class RuntimeReplies {

    private RuntimeReplies() {
    }

    static BedrockOutcome outcome(SignedHttp.Reply reply, BiFunction<JsonNode, SignedHttp.Reply, BedrockOutcome> ok) {
        if (reply.status() == 200 && !UsageReading.isWholeObject(reply.body())) {
            // Bedrock answered, so the generation ran and was billed, but the body was cut off on its way:
            // a connection broken mid-answer, never sent again (not a dependency error that frees its charge).
            return OutcomeClassifier.connectionFailure(new java.io.IOException("the answer was cut off after "
                    + reply.body().length + " bytes"));
        }
        JsonNode body = UsageReading.tree(reply.body());
        if (reply.status() == 200) {
            return ok.apply(body, reply);
        }
        String code = reply.header("x-amzn-ErrorType").orElse(body.path("__type").asText(null));
        return OutcomeClassifier.classify(code, reply.status(), UsageReading.message(body, reply.body()));
    }
}
