package dev.trafficshaper.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import org.junit.jupiter.api.Test;

class SubmissionTest {

    @Test
    void textBuildsTheMinimalConverseBody() {
        Submission submission = Submission.text("nova-lite", "Say \"hi\"", 256);

        assertThat(submission.toJson()).isEqualTo("{\"model\":\"nova-lite\",\"converse\":{\"messages\":[{\"role\":"
                + "\"user\",\"content\":[{\"text\":\"Say \\\"hi\\\"\"}]}],\"inferenceConfig\":{\"maxTokens\":256}}}");
        assertThat(submission.requestId()).isEmpty();
        assertThat(submission.priority()).isEmpty();
        assertThat(submission.deadlineSeconds()).isEmpty();
    }

    @Test
    void everyFieldGoesIntoTheBody() {
        Submission submission = Submission.builder()
                .requestId("job-42")
                .model("claude")
                .priority(Priority.INTERACTIVE)
                .deadlineSeconds(90)
                .callbackUrl("https://hooks.example.com/shaper")
                .converse("{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"x\"}]}],"
                        + "\"inferenceConfig\":{\"maxTokens\":10,\"temperature\":0.2},"
                        + "\"system\":[{\"text\":\"be brief\"}]}")
                .build();

        assertThat(submission.toJson()).isEqualTo("{\"requestId\":\"job-42\",\"model\":\"claude\","
                + "\"priority\":\"interactive\",\"deadlineSeconds\":90,"
                + "\"callbackUrl\":\"https://hooks.example.com/shaper\","
                + "\"converse\":{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"x\"}]}],"
                + "\"inferenceConfig\":{\"maxTokens\":10,\"temperature\":0.2},\"system\":[{\"text\":\"be brief\"}]}}");
        assertThat(submission.callbackUrl()).contains(URI.create("https://hooks.example.com/shaper"));
    }

    @Test
    void toBuilderKeepsEverythingAndChangesOnlyWhatIsSet() {
        Submission original = Submission.text("nova-lite", "Hi", 64).toBuilder().requestId("a").build();

        Submission bulk = original.toBuilder().priority(Priority.BULK).build();

        assertThat(bulk.requestId()).contains("a");
        assertThat(bulk.priority()).contains(Priority.BULK);
        assertThat(bulk.converse()).isEqualTo(original.converse());
        assertThat(original.priority()).isEmpty();
    }

    @Test
    void theSubmissionIsImmutable() {
        ObjectNode converse = Submission.text("m", "Hi", 64).converse();
        Submission submission = Submission.builder().model("m").converse(converse).build();

        converse.put("injected", true);
        submission.converse().put("alsoInjected", true);

        assertThat(submission.toJson()).doesNotContain("injected", "alsoInjected");
    }

    @Test
    void buildChecksWhatTheClientNeeds() {
        assertThatThrownBy(() -> Submission.builder().converse("{}").build())
                .hasMessageContaining("model");
        assertThatThrownBy(() -> Submission.builder().model("m").build())
                .hasMessageContaining("converse");
        assertThatThrownBy(() -> Submission.builder().model("m").converse("[1]"))
                .hasMessageContaining("JSON object");
        assertThatThrownBy(() -> Submission.builder().model("m").converse("{nope"))
                .hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> Submission.builder().model("m").converse("{}").deadlineSeconds(0).build())
                .hasMessageContaining("deadlineSeconds");
        assertThatThrownBy(() -> Submission.builder().model("m").converse("{}").requestId(" ").build())
                .hasMessageContaining("requestId");
        assertThatThrownBy(() -> Submission.builder().model("m").converse("{}").callbackUrl("/relative").build())
                .hasMessageContaining("callbackUrl");
        assertThatThrownBy(() -> Submission.text("m", "Hi", 0)).hasMessageContaining("maxTokens");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', textBlock = """
            CHAT     | {"model":"gpt","chatCompletions":{"messages":[{"role":"user","content":"Hi"}],"max_completion_tokens":64}}
            RESPONSES| {"model":"gpt","responses":{"input":"Hi","max_output_tokens":64}}
            MESSAGES | {"model":"gpt","messages":{"max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}}
            INVOKE   | {"model":"gpt","invokeModel":{"anthropic_version":"bedrock-2023-05-31","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}}
            """)
    void eachTypedSubmissionGoesUnderItsBackendsKey(String kind, String json) {
        Submission submission = switch (kind) {
            case "CHAT" -> Submission.chatCompletionsText("gpt", "Hi", 64);
            case "RESPONSES" -> Submission.responsesText("gpt", "Hi", 64);
            case "MESSAGES" -> Submission.messagesText("gpt", "Hi", 64);
            default -> Submission.anthropicInvokeText("gpt", "Hi", 64);
        };
        assertThat(submission.toJson()).isEqualTo(json);
    }

    @Test
    void theInvokeModelTierTravelsBesideTheBodyAndOnlyThere() {
        Submission flex = Submission.anthropicInvokeText("m", "Hi", 8).toBuilder().serviceTier("flex").build();
        assertThat(flex.toJson()).contains("\"serviceTier\":\"flex\",\"invokeModel\":");
        assertThatThrownBy(() -> Submission.text("m", "Hi", 8).toBuilder().serviceTier("flex").build())
                .hasMessageContaining("serviceTier");
        assertThatThrownBy(() -> Submission.messagesText("m", "Hi", 8).converse())
                .isInstanceOf(IllegalStateException.class);
    }
}
