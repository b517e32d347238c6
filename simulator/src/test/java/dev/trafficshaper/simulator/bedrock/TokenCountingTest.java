package dev.trafficshaper.simulator.bedrock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.model.MediaRule;
import dev.trafficshaper.submission.TokenRule;
import org.junit.jupiter.api.Test;

class TokenCountingTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void eachBlockRoundsUpItsQuarterCharactersAndEachTurnAddsThree() throws Exception {
        JsonNode body = MAPPER.readTree("""
                {"messages": [{"role": "user", "content": [{"text": "abcd"}, {"text": "e"}]}]}""");
        assertThat(ConverseCodec.readPrompt(body).tokens(MediaRule.defaults())).isEqualTo(1 + 1 + 3);
    }

    @Test
    void fillerTextCountsAsExactlyTheTokensItWasMadeFor() {
        for (long tokens : new long[] {0, 1, 7, 300, 4_096}) {
            assertThat(TokenRule.text(FillerText.ofTokens(tokens))).isEqualTo(tokens);
        }
        assertThat(FillerText.ofTokens(5)).isEqualTo(FillerText.ofTokens(5));
    }

    @Test
    void nativeBodiesAreRecognisedByTheirFields() throws Exception {
        assertThat(detect("{\"anthropic_version\":\"x\",\"max_tokens\":5,\"messages\":[]}", "m"))
                .isEqualTo(NativeFormat.ANTHROPIC);
        assertThat(detect("{\"messages\":[],\"inferenceConfig\":{\"max_new_tokens\":5}}", "amazon.nova-pro-v1:0"))
                .isEqualTo(NativeFormat.NOVA);
        assertThat(detect("{\"inputText\":\"hi\"}", "amazon.titan-text-express-v1")).isEqualTo(NativeFormat.TITAN);
        assertThat(detect("{\"prompt\":\"hi\",\"max_gen_len\":9}", "m")).isEqualTo(NativeFormat.LLAMA);
        assertThat(detect("{\"prompt\":\"hi\",\"max_tokens\":9}", "mistral.x")).isEqualTo(NativeFormat.PROMPT_COMPLETION);
        assertThatThrownBy(() -> detect("{\"question\":1}", "m")).isInstanceOf(BedrockFailure.class)
                .extracting(e -> ((BedrockFailure) e).error()).isEqualTo(BedrockError.VALIDATION);
    }

    @Test
    void novaBodyReadsMaxNewTokensAndSystemText() throws Exception {
        JsonNode body = MAPPER.readTree("""
                {"system": [{"text": "be brief"}],
                 "messages": [{"role": "user", "content": [{"text": "hello world!"}]}],
                 "inferenceConfig": {"max_new_tokens": 77}}""");

        Inference inference = NativeFormat.NOVA.read(body);

        assertThat(inference.maxTokens()).isEqualTo(77);
        assertThat(inference.prompt().tokens(MediaRule.defaults())).isEqualTo(3 + 2 + 3);
    }

    @Test
    void converseWithoutMaxTokensLeavesTheAllowanceToTheModel() throws Exception {
        JsonNode body = MAPPER.readTree("{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"hi\"}]}]}");

        assertThat(ConverseCodec.readRequest(body).maxTokens()).isZero();
    }

    @Test
    void errorCodesAreAcceptedWithOrWithoutTheirSuffix() {
        assertThat(BedrockError.fromCode("modeltimeout")).isEqualTo(BedrockError.MODEL_TIMEOUT);
        assertThat(BedrockError.fromCode("ThrottlingException").status()).isEqualTo(429);
    }

    private static NativeFormat detect(String json, String modelId) throws Exception {
        return NativeFormat.detect(MAPPER.readTree(json), modelId);
    }
}
