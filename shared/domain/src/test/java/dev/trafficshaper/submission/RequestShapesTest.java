package dev.trafficshaper.submission;

import static dev.trafficshaper.submission.AllBackends.CATALOG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ServiceTier;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every shape is accepted under its backend's key, kept byte for byte, with its output limit
 * read; and each reason the shaper can know at submission refuses the body with 400 and the field.
 */
class RequestShapesTest {

    private final SubmissionParser parser = SubmissionParser.create(CATALOG, CallbackUrlPolicy.strict(), 1 << 20);

    @ParameterizedTest(name = "{0} under {1}")
    @CsvSource(delimiter = '|', textBlock = """
            converse  | converse        | CONVERSE  | converse.inferenceConfig.maxTokens
            anthropic | invokeModel     | ANTHROPIC | invokeModel.max_tokens
            nova      | invokeModel     | NOVA      | invokeModel.inferenceConfig.max_new_tokens
            llama     | invokeModel     | LLAMA     | invokeModel.max_gen_len
            titan     | invokeModel     | TITAN     | invokeModel.textGenerationConfig.maxTokenCount
            mistral   | invokeModel     | MISTRAL   | invokeModel.max_tokens
            chat      | chatCompletions | CHAT      | chatCompletions.max_completion_tokens
            responses | responses       | RESPONSES | responses.max_output_tokens
            messages  | messages        | MESSAGES  | messages.max_tokens
            """)
    void everyShapeIsAcceptedUnderItsKeyAsItCame(String model, String key, String sample, String limitField)
            throws Exception {
        String body = (String) AllBackends.class.getDeclaredField(sample).get(null);
        // odd spacing and key order: the stored body must be these very bytes
        String spaced = body.replace(":", " : ");
        Submission s = parse("{\"model\": \"" + model + "\",   \"" + key + "\":" + spaced + "}");

        assertThat(s.body().text()).isEqualTo(spaced);
        assertThat(s.backend().bodyKey()).isEqualTo(key);
        assertThat(s.maxTokens()).isEqualTo(100);
        assertThat(s.shaped().outputLimitField()).isEqualTo(limitField);
    }

    @ParameterizedTest(name = "{0}: {2}")
    @CsvSource(delimiter = '|', textBlock = """
            converse  | {"model":"converse","messages":CHAT}                                   | messages
            chat      | {"model":"chat","converse":CONVERSE}                                  | converse
            messages  | {"model":"messages","invokeModel":ANTHROPIC}                          | invokeModel
            responses | {"model":"responses"}                                                 | responses
            converse  | {"model":"converse","converse":[1]}                                   | converse
            """)
    void aBodyUnderAnotherBackendsKeyOrNoneIsRefused(String model, String template, String field) {
        assertField(template, field);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', textBlock = """
            converse  | {"messages":[{"role":"user","content":[{"text":"x"}]}],"inferenceConfig":{"maxTokens":9},"toolconfig":{}} | converse.toolconfig
            anthropic | {"anthropic_version":"v","max_tokens":9,"messages":[{"role":"user","content":"x"}],"model":"m"}            | invokeModel.model
            nova      | {"messages":[{"role":"user","content":[{"text":"x"}]}],"inferenceConfig":{"max_new_tokens":9},"topK":1}   | invokeModel.topK
            chat      | {"messages":[{"role":"user","content":"x"}],"max_tokens":9,"functions":[]}                               | chatCompletions.functions
            responses | {"input":"x","max_output_tokens":9,"messages":[]}                                                        | responses.messages
            messages  | {"max_tokens":9,"messages":[{"role":"user","content":"x"}],"inferenceConfig":{}}                         | messages.inferenceConfig
            """)
    void anUnknownTopLevelFieldOfTheShapeIsRefusedByName(String model, String body, String field) {
        String key = CATALOG.require(model).backend().bodyKey();
        assertField("{\"model\":\"" + model + "\",\"" + key + "\":" + body + "}", field);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', textBlock = """
            converse  | {"messages":[{"role":"user","content":[{"text":"x"}]}]}                        | converse.inferenceConfig.maxTokens
            anthropic | {"anthropic_version":"v","messages":[{"role":"user","content":"x"}]}           | invokeModel.max_tokens
            nova      | {"messages":[{"role":"user","content":[{"text":"x"}]}],"inferenceConfig":{}}   | invokeModel.inferenceConfig.max_new_tokens
            llama     | {"prompt":"x"}                                                                 | invokeModel.max_gen_len
            titan     | {"inputText":"x"}                                                              | invokeModel.textGenerationConfig.maxTokenCount
            mistral   | {"prompt":"x"}                                                                 | invokeModel.max_tokens
            chat      | {"messages":[{"role":"user","content":"x"}]}                                   | chatCompletions.max_completion_tokens
            responses | {"input":"x"}                                                                  | responses.max_output_tokens
            messages  | {"messages":[{"role":"user","content":"x"}]}                                   | messages.max_tokens
            messages  | {"max_tokens":1001,"messages":[{"role":"user","content":"x"}]}                 | messages.max_tokens
            """)
    void aMissingOrOversizeOutputLimitIsRefused(String model, String body, String field) {
        String key = CATALOG.require(model).backend().bodyKey();
        assertField("{\"model\":\"" + model + "\",\"" + key + "\":" + body + "}", field);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', textBlock = """
            converse-standard | {"model":"converse-standard","converse":{"messages":[{"role":"user","content":[{"text":"x"}]}],"inferenceConfig":{"maxTokens":9},"serviceTier":{"type":"flex"}}} | converse.serviceTier.type
            converse          | {"model":"converse","converse":{"messages":[{"role":"user","content":[{"text":"x"}]}],"inferenceConfig":{"maxTokens":9},"serviceTier":{"type":"reserved"}}} | converse.serviceTier.type
            converse          | {"model":"converse","converse":{"messages":[{"role":"user","content":[{"text":"x"}]}],"inferenceConfig":{"maxTokens":9},"serviceTier":{"type":"cheap"}}}    | converse.serviceTier.type
            nova              | {"model":"nova","serviceTier":"flex","invokeModel":NOVA}                                                                                                     | serviceTier
            chat              | {"model":"chat","serviceTier":"flex","chatCompletions":CHAT}                                                                                                 | serviceTier
            responses         | {"model":"responses","responses":{"input":"x","max_output_tokens":9,"service_tier":"priority"}}                                                            | responses.service_tier
            messages          | {"model":"messages","messages":{"max_tokens":9,"messages":[{"role":"user","content":"x"}],"service_tier":"flex"}}                                          | messages.service_tier
            """)
    void aServiceTierTheModelLacksIsRefused(String model, String template, String field) {
        assertField(template, field);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', textBlock = """
            chat      | {"messages":[{"role":"user","content":"x"}],"max_tokens":9,"stream":true}    | chatCompletions.stream
            chat      | {"messages":[{"role":"user","content":"x"}],"max_tokens":9,"n":2}            | chatCompletions.n
            chat      | {"messages":[{"role":"user","content":"x"}],"max_tokens":9,"model":"other"}  | chatCompletions.model
            responses | {"input":"x","max_output_tokens":9,"background":true}                        | responses.background
            responses | {"input":"x","max_output_tokens":9,"previous_response_id":"resp_1"}          | responses.previous_response_id
            responses | {"input":[],"max_output_tokens":9}                                           | responses.input
            messages  | {"max_tokens":9,"messages":[{"role":"user","content":"x"}],"stream":true}    | messages.stream
            anthropic | {"max_tokens":9,"messages":[{"role":"user","content":"x"}]}                  | invokeModel.anthropic_version
            converse  | {"messages":[],"inferenceConfig":{"maxTokens":9}}                            | converse.messages
            """)
    void whatCannotRunOrCannotBeReservedIsRefusedAtTheDoor(String model, String body, String field) {
        String key = CATALOG.require(model).backend().bodyKey();
        assertField("{\"model\":\"" + model + "\",\"" + key + "\":" + body + "}", field);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            converse  | {"model":"converse","converse":{"messages":[{"role":"user","content":[{"text":"x"}]}],"inferenceConfig":{"maxTokens":9},"serviceTier":{"type":"priority"}}} | PRIORITY | converse.serviceTier.type
            anthropic | {"model":"anthropic","serviceTier":"flex","invokeModel":ANTHROPIC}                                                                                       | FLEX     | serviceTier
            chat      | {"model":"chat","chatCompletions":{"messages":[{"role":"user","content":"x"}],"max_tokens":9,"service_tier":"auto"}}                                   | DEFAULT  | chatCompletions.service_tier
            """)
    void aTierTheModelOffersIsReadWhereTheShapeKeepsIt(String model, String template, ServiceTier tier, String field) {
        Submission s = parse(expand(template));
        assertThat(s.shaped().tier()).isEqualTo(tier);
        assertThat(s.shaped().tierField()).isEqualTo(field);
        assertThat(s.backend()).isEqualTo(CATALOG.require(model).backend());
    }

    @ParameterizedTest
    @CsvSource({"chat", "responses", "messages"})
    void aMantleBodyMayNameItsOwnModel(String model) throws Exception {
        Backend backend = CATALOG.require(model).backend();
        String sample = switch (backend) {
            case MANTLE_CHAT_COMPLETIONS -> AllBackends.CHAT;
            case MANTLE_RESPONSES -> AllBackends.RESPONSES;
            default -> AllBackends.MESSAGES;
        };
        String body = "{\"model\":\"" + CATALOG.require(model).modelId() + "\"," + sample.substring(1);
        Submission s = parse("{\"model\":\"" + model + "\",\"" + backend.bodyKey() + "\":" + body + "}");
        assertThat(s.shaped().bodyModel()).isEqualTo(CATALOG.require(model).modelId());
    }

    private Submission parse(String body) {
        return parser.parse(body.getBytes(StandardCharsets.UTF_8));
    }

    private void assertField(String template, String field) {
        assertThatThrownBy(() -> parse(expand(template)))
                .isInstanceOfSatisfying(InvalidSubmissionException.class,
                        e -> assertThat(e.field()).as(e.getMessage()).isEqualTo(field));
    }

    private static String expand(String template) {
        return template.replace("CONVERSE", AllBackends.CONVERSE).replace("ANTHROPIC", AllBackends.ANTHROPIC)
                .replace("NOVA", AllBackends.NOVA).replace("CHAT", AllBackends.CHAT);
    }
}
