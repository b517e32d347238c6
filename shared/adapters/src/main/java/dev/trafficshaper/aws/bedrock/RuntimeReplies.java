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
        JsonNode body = UsageReading.tree(reply.body());
        if (reply.status() == 200 && body.isObject()) {
            return ok.apply(body, reply);
        }
        String code = reply.header("x-amzn-ErrorType").orElse(body.path("__type").asText(null));
        return OutcomeClassifier.classify(code, reply.status(), UsageReading.message(body, reply.body()));
    }
}
