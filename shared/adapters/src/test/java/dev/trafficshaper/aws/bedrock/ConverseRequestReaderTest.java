package dev.trafficshaper.aws.bedrock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.InferenceConfiguration;
import software.amazon.awssdk.services.bedrockruntime.model.Message;
import software.amazon.awssdk.services.bedrockruntime.model.SystemContentBlock;

class ConverseRequestReaderTest {

    private final ConverseRequestReader reader = new ConverseRequestReader(new ObjectMapper());

    @Test
    void readsTextMessagesSystemAndInferenceSettings() {
        ConverseRequest request = reader.read("amazon.nova-lite-v1:0", """
                {"system": [{"text": "be brief"}],
                 "messages": [{"role": "user", "content": [{"text": "hi"}, {"text": "there"}]},
                              {"role": "assistant", "content": [{"text": "hello"}]},
                              {"role": "user", "content": [{"text": "sum 2+2"}]}],
                 "inferenceConfig": {"maxTokens": 200, "temperature": 0.5, "topP": 0.9,
                                     "stopSequences": ["END"]}}""");

        assertThat(request.modelId()).isEqualTo("amazon.nova-lite-v1:0");
        assertThat(request.system()).containsExactly(SystemContentBlock.fromText("be brief"));
        assertThat(request.messages()).containsExactly(
                Message.builder().role(ConversationRole.USER)
                        .content(ContentBlock.fromText("hi"), ContentBlock.fromText("there")).build(),
                Message.builder().role(ConversationRole.ASSISTANT).content(ContentBlock.fromText("hello")).build(),
                Message.builder().role(ConversationRole.USER).content(ContentBlock.fromText("sum 2+2")).build());
        assertThat(request.inferenceConfig()).isEqualTo(InferenceConfiguration.builder()
                .maxTokens(200).temperature(0.5f).topP(0.9f).stopSequences("END").build());
    }

    @Test
    void theModelComesFromTheCatalogNotTheBody() {
        assertThatThrownBy(() -> reader.read("amazon.nova-lite-v1:0", """
                {"modelId": "anthropic.claude-opus", "messages": [{"role": "user", "content": [{"text": "hi"}]}]}"""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("modelId");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "",
            "not json",
            "[]",
            "{}",
            "{\"messages\": []}",
            "{\"messages\": [{\"role\": \"robot\", \"content\": [{\"text\": \"hi\"}]}]}",
            "{\"messages\": [{\"role\": \"user\", \"content\": []}]}",
            "{\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": 7}]}]}",
            "{\"messages\": [{\"role\": \"user\", \"content\": [{\"image\": {}}]}]}",
            "{\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": \"hi\"}]}], \"toolConfig\": {}}",
            "{\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": \"hi\"}]}],"
                    + " \"inferenceConfig\": {\"maxTokens\": 0}}",
            "{\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": \"hi\"}]}],"
                    + " \"inferenceConfig\": {\"maxTokens\": 1.5}}",
            "{\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": \"hi\"}]}],"
                    + " \"inferenceConfig\": {\"topK\": 5}}",
    })
    void refusesWhatItCannotSendFaithfully(String body) {
        assertThatThrownBy(() -> reader.read("amazon.nova-lite-v1:0", body))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
