package dev.trafficshaper.submission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.pacing.Lane;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SubmissionParserTest {

    private static final String CONVERSE = """
            {"messages": [{"role": "user", "content": [{"text": "Hello"}]}], "inferenceConfig": {"maxTokens": 500}}""";
    private static final ModelCatalog CATALOG = ModelCatalog.of(List.of(
            ModelConfig.of("nova-lite", "amazon.nova-lite-v1:0", Quota.tokensPerMinute(4_000_000)),
            ModelConfig.of("claude-sonnet", "anthropic.claude-sonnet", Quota.tokensPerMinute(400_000))));
    private static final int MAX_BODY = 4_096;

    private final SubmissionParser parser = SubmissionParser.create(CATALOG, CallbackUrlPolicy.strict()
            .resolvingWith(CallbackUrlPolicyTest.NAMES), MAX_BODY);

    @Test
    void readsAFullSubmission() throws Exception {
        Submission s = parse("""
                {"requestId": "order-42.a~b_c-d", "model": "claude-sonnet", "priority": "bulk",
                 "deadlineSeconds": 120, "callbackUrl": "https://hooks.example.com/done", "converse": %s}"""
                .formatted(CONVERSE));

        assertThat(s.requestId()).isEqualTo("order-42.a~b_c-d");
        assertThat(s.modelKey()).isEqualTo("claude-sonnet");
        assertThat(s.lane()).isEqualTo(Lane.BULK);
        assertThat(s.deadlineSeconds()).isEqualTo(120);
        assertThat(s.callbackUrl()).isEqualTo("https://hooks.example.com/done");
        assertThat(s.maxTokens()).isEqualTo(500);
        ObjectMapper json = new ObjectMapper();
        assertThat(json.readTree(s.body().bytes())).isEqualTo(json.readTree(CONVERSE));
        assertThat(s.body().text()).as("byte for byte as it came").isEqualTo(CONVERSE);
    }

    @Test
    void fillsInTheDefaultsOfTheOptionalFields() {
        Submission s = parse("{\"model\": \"nova-lite\", \"converse\": " + CONVERSE + "}");

        assertThat(s.requestIdIfGiven()).isEmpty();
        assertThat(s.lane()).isEqualTo(Lane.INTERACTIVE);
        assertThat(s.deadlineSeconds()).isEqualTo(900);
        assertThat(s.callbackUrl()).isNull();
    }

    @Test
    void explicitNullsMeanAbsent() {
        Submission s = parse("{\"requestId\": null, \"model\": \"nova-lite\", \"priority\": null, "
                + "\"deadlineSeconds\": null, \"callbackUrl\": null, \"converse\": " + CONVERSE + "}");

        assertThat(s.requestIdIfGiven()).isEmpty();
        assertThat(s.deadlineSeconds()).isEqualTo(900);
    }

    @Test
    void malformedJsonIsRefusedWithItsLocation() {
        refused("{\n  \"model\": nova-lite\n}")
                .hasMessageStartingWith("malformed JSON")
                .hasMessageContaining("line 2, column");
        assertField(refusedOf("{\"model\": \"nova-lite\","), "");
    }

    @Test
    void contentAfterTheObjectIsRefused() {
        assertThat(refusedOf("{\"model\": \"nova-lite\"} {}").field()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"[]", "\"text\"", "42", "null"})
    void aBodyThatIsNotAnObjectIsRefused(String body) {
        InvalidSubmissionException e = refusedOf(body);
        assertThat(e.field()).isEmpty();
        assertThat(e).hasMessageContaining("JSON object");
    }

    @Test
    void anEmptyBodyIsRefused() {
        assertThatThrownBy(() -> parser.parse(new byte[0])).isInstanceOf(InvalidSubmissionException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> parser.parse(null)).isInstanceOf(InvalidSubmissionException.class);
    }

    @Test
    void anOversizeBodyIsRefusedBeforeItIsRead() {
        String padding = "x".repeat(MAX_BODY);
        InvalidSubmissionException e = refusedOf("{\"model\": \"nova-lite\", \"converse\": {\"messages\": [{\"role\": "
                + "\"user\", \"content\": [{\"text\": \"" + padding + "\"}]}], \"inferenceConfig\": {\"maxTokens\": 5}}}");

        assertThat(e.field()).isEmpty();
        assertThat(e).hasMessageContaining("over the limit of " + MAX_BODY + " bytes");
    }

    @Test
    void aBodyOfExactlyTheLimitIsRead() {
        String start = "{\"model\": \"nova-lite\", \"converse\": {\"messages\": [{\"role\": \"user\", \"content\": "
                + "[{\"text\": \"";
        String end = "\"}]}], \"inferenceConfig\": {\"maxTokens\": 5}}}";
        String body = start + "x".repeat(MAX_BODY - start.length() - end.length()) + end;

        assertThat(body.getBytes(StandardCharsets.UTF_8)).hasSize(MAX_BODY);
        assertThat(parse(body).maxTokens()).isEqualTo(5);
    }

    @Test
    void anUnknownTopLevelFieldIsRefusedByName() {
        InvalidSubmissionException e = refusedOf("{\"model\": \"nova-lite\", \"deadline\": 60, \"converse\": "
                + CONVERSE + "}");

        assertThat(e.field()).isEqualTo("deadline");
        assertThat(e).hasMessageContaining("unknown field 'deadline'").hasMessageContaining("deadlineSeconds");
    }

    @Test
    void aMissingModelIsRefusedListingTheConfiguredOnes() {
        InvalidSubmissionException e = refusedOf("{\"converse\": " + CONVERSE + "}");

        assertThat(e.field()).isEqualTo("model");
        assertThat(e).hasMessageContaining("claude-sonnet, nova-lite");
    }

    @Test
    void anUnknownModelIsRefusedListingTheConfiguredOnes() {
        InvalidSubmissionException e = refusedOf("{\"model\": \"gpt-4\", \"converse\": " + CONVERSE + "}");

        assertThat(e.field()).isEqualTo("model");
        assertThat(e).hasMessageContaining("unknown model 'gpt-4'").hasMessageContaining("claude-sonnet, nova-lite");
    }

    @Test
    void aModelThatIsNotAStringIsRefused() {
        assertField(refusedOf("{\"model\": 7, \"converse\": " + CONVERSE + "}"), "model");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"urgent\"", "\"INTERACTIVE\"", "\"\"", "1"})
    void anUnknownPriorityIsRefused(String priority) {
        assertField(refusedOf("{\"model\": \"nova-lite\", \"priority\": " + priority + ", \"converse\": " + CONVERSE
                + "}"), "priority");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-5", "3601", "1.5", "\"60\"", "true", "99999999999999999999999"})
    void aDeadlineOutOfRangeOrNotAWholeNumberIsRefused(String deadline) {
        assertField(refusedOf("{\"model\": \"nova-lite\", \"deadlineSeconds\": " + deadline + ", \"converse\": "
                + CONVERSE + "}"), "deadlineSeconds");
    }

    @Test
    void theDeadlineMayBeAnythingFromOneSecondToTheModelsMaximum() {
        assertThat(parse("{\"model\": \"nova-lite\", \"deadlineSeconds\": 1, \"converse\": " + CONVERSE + "}")
                .deadlineSeconds()).isEqualTo(1);
        assertThat(parse("{\"model\": \"nova-lite\", \"deadlineSeconds\": 3600, \"converse\": " + CONVERSE + "}")
                .deadlineSeconds()).isEqualTo(3600);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "\"inferenceConfig\": {}", "\"inferenceConfig\": {\"maxTokens\": null}",
            "\"inferenceConfig\": {\"maxTokens\": -1}", "\"inferenceConfig\": {\"maxTokens\": 0}",
            "\"inferenceConfig\": {\"maxTokens\": 10001}", "\"inferenceConfig\": {\"maxTokens\": 2.5}",
            "\"inferenceConfig\": {\"maxTokens\": \"100\"}",
            "\"inferenceConfig\": {\"maxTokens\": 99999999999999999999999}"})
    void aMissingOrUnusableMaxTokensIsRefused(String inferenceConfig) {
        String converse = "{\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": \"Hi\"}]}]"
                + (inferenceConfig.isEmpty() ? "" : ", " + inferenceConfig) + "}";

        assertField(refusedOf("{\"model\": \"nova-lite\", \"converse\": " + converse + "}"),
                "converse.inferenceConfig.maxTokens");
    }

    @Test
    void maxTokensUpToTheModelsLimitIsAccepted() {
        String converse = "{\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": \"Hi\"}]}], "
                + "\"inferenceConfig\": {\"maxTokens\": 10000}}";

        assertThat(parse("{\"model\": \"nova-lite\", \"converse\": " + converse + "}").maxTokens()).isEqualTo(10_000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"messages\": []", "\"messages\": {}", "\"messages\": \"hi\"", "\"system\": []"})
    void emptyOrMissingMessagesAreRefused(String messages) {
        assertField(refusedOf("{\"model\": \"nova-lite\", \"converse\": {" + messages
                + ", \"inferenceConfig\": {\"maxTokens\": 5}}}"), "converse.messages");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ", \"converse\": null", ", \"converse\": \"hello\"", ", \"converse\": []",
            ", \"converse\": 3"})
    void aMissingConverseOrOneThatIsNotAnObjectIsRefused(String converse) {
        assertField(refusedOf("{\"model\": \"nova-lite\"" + converse + "}"), "converse");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"a#b\"", "\"has space\"", "\"slash/ed\"", "\"\"", "42", "\".\"", "\"..\"",
            "\"a:b\"", "\"a%2Fb\"", "\"a?b\"", "\"caf\u00e9\"", "\"tab\\tbed\""})
    void aRequestIdWithCharactersKeysCannotHoldIsRefused(String requestId) {
        assertField(refusedOf("{\"requestId\": " + requestId + ", \"model\": \"nova-lite\", \"converse\": " + CONVERSE
                + "}"), "requestId");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "order-42", "a.b", "...", "x~y_z", "A.-_~9"})
    void aRequestIdOfUnreservedUrlCharactersIsAccepted(String requestId) {
        assertThat(parse("{\"requestId\": \"" + requestId + "\", \"model\": \"nova-lite\", \"converse\": " + CONVERSE
                + "}").requestId()).isEqualTo(requestId);
    }

    @Test
    void aDuplicateKeyIsRefusedAtTheTopAndInsideTheBody() {
        assertField(refusedOf("{\"model\": \"nope\", \"model\": \"nova-lite\", \"converse\": " + CONVERSE + "}"),
                "model");
        assertField(refusedOf("{\"model\": \"nova-lite\", \"converse\": {\"messages\": [], \"messages\": [{\"role\":"
                + " \"user\", \"content\": [{\"text\": \"x\"}]}], \"inferenceConfig\": {\"maxTokens\": 5}}}"), "messages");
    }

    @ParameterizedTest
    @ValueSource(strings = {"C0AF", "E080AF", "F0808080", "EDA080", "FF", "C3"})
    void aBodyThatIsNotValidUtf8IsRefused(String badBytes) {
        byte[] prefix = "{\"model\": \"nova-lite\", \"converse\": {\"messages\": [{\"role\": \"user\", \"content\": [{\"text\": \""
                .getBytes(StandardCharsets.UTF_8);
        byte[] bad = java.util.HexFormat.of().parseHex(badBytes);
        byte[] suffix = "\"}]}], \"inferenceConfig\": {\"maxTokens\": 5}}}".getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[prefix.length + bad.length + suffix.length];
        System.arraycopy(prefix, 0, body, 0, prefix.length);
        System.arraycopy(bad, 0, body, prefix.length, bad.length);
        System.arraycopy(suffix, 0, body, prefix.length + bad.length, suffix.length);

        assertThatThrownBy(() -> parser.parse(body)).isInstanceOf(InvalidSubmissionException.class)
                .hasMessageContaining("not valid UTF-8");
    }

    @Test
    void theBodyDigestIgnoresKeyOrderAndSpacingButNotValues() {
        String a = parse("{\"model\": \"nova-lite\", \"requestId\": \"d1\", \"converse\": " + CONVERSE + "}").bodyDigest();
        String reordered = parse("{\"converse\":{\"inferenceConfig\":{\"maxTokens\":500},\"messages\":[{\"content\":"
                + "[{\"text\":\"Hello\"}],\"role\":\"user\"}]},\"requestId\":\"d1\",\"model\":\"nova-lite\"}").bodyDigest();
        String changed = parse("{\"model\": \"nova-lite\", \"requestId\": \"d1\", \"converse\": "
                + CONVERSE.replace("Hello", "Hullo") + "}").bodyDigest();

        String withoutId = parse("{\"model\": \"nova-lite\", \"converse\": " + CONVERSE + "}").bodyDigest();

        assertThat(reordered).isEqualTo(a).matches("[0-9a-f]{64}");
        assertThat(withoutId).as("the id is the key, not part of the request").isEqualTo(a);
        assertThat(changed).isNotEqualTo(a);
    }

    @Test
    void aRequestIdLongerThanTheKeyLimitIsRefused() {
        assertField(refusedOf("{\"requestId\": \"" + "r".repeat(129) + "\", \"model\": \"nova-lite\", \"converse\": "
                + CONVERSE + "}"), "requestId");
        assertThat(parse("{\"requestId\": \"" + "r".repeat(128) + "\", \"model\": \"nova-lite\", \"converse\": "
                + CONVERSE + "}").requestId()).hasSize(128);
    }

    @Test
    void aCallbackTheStrictPolicyRefusesIsReportedOnCallbackUrl() {
        assertField(refusedOf("{\"model\": \"nova-lite\", \"callbackUrl\": \"http://hooks.example.com/\", "
                + "\"converse\": " + CONVERSE + "}"), "callbackUrl");
        assertField(refusedOf("{\"model\": \"nova-lite\", \"callbackUrl\": 5, \"converse\": " + CONVERSE + "}"),
                "callbackUrl");
    }

    @Test
    void theLocalPolicyAcceptsAnHttpCallbackOnLoopback() {
        SubmissionParser local = SubmissionParser.create(CATALOG, CallbackUrlPolicy.local(), MAX_BODY);
        String body = "{\"model\": \"nova-lite\", \"callbackUrl\": \"http://localhost:8080/hook\", \"converse\": "
                + CONVERSE + "}";

        assertThat(local.parse(body.getBytes(StandardCharsets.UTF_8)).callbackUrl())
                .isEqualTo("http://localhost:8080/hook");
    }

    private Submission parse(String body) {
        return parser.parse(body.getBytes(StandardCharsets.UTF_8));
    }

    private InvalidSubmissionException refusedOf(String body) {
        try {
            parse(body);
        } catch (InvalidSubmissionException e) {
            return e;
        }
        throw new AssertionError("expected the body to be refused: " + body);
    }

    private AbstractThrowableAssert<?, ? extends Throwable> refused(String body) {
        return assertThat(refusedOf(body));
    }

    private static void assertField(InvalidSubmissionException e, String field) {
        assertThat(e.field()).as("field of: %s", e.getMessage()).isEqualTo(field);
    }
}
