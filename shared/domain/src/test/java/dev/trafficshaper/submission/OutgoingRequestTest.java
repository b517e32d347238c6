package dev.trafficshaper.submission;

import static dev.trafficshaper.submission.AllBackends.CATALOG;
import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.bedrock.InvokeModelRequest;
import dev.trafficshaper.model.ServiceTier;
import dev.trafficshaper.payload.Payload;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The stored request is the caller's body byte for byte, plus only what the shaper decides. */
class OutgoingRequestTest {

    private final SubmissionParser parser = SubmissionParser.create(CATALOG, CallbackUrlPolicy.strict(), 1 << 20);

    @Test
    void anInteractiveConverseBodyIsSentExactlyAsItCame() {
        Submission s = parse("{\"model\":\"converse\",\"converse\": " + AllBackends.CONVERSE + "}");
        assertThat(OutgoingRequest.forModel(CATALOG.require("converse"), s).text()).isEqualTo(AllBackends.CONVERSE);
    }

    @Test
    void aBulkRequestGetsTheModelsBulkTierOnlyWhenItNamesNone() {
        Submission bulk = parse("{\"model\":\"converse\",\"priority\":\"bulk\",\"converse\":" + AllBackends.CONVERSE
                + "}");
        assertThat(OutgoingRequest.forModel(CATALOG.require("converse"), bulk).text())
                .isEqualTo("{\"serviceTier\":{\"type\":\"flex\"}," + AllBackends.CONVERSE.substring(1));

        String own = "{\"serviceTier\":{\"type\":\"priority\"}," + AllBackends.CONVERSE.substring(1);
        Submission named = parse("{\"model\":\"converse\",\"priority\":\"bulk\",\"converse\":" + own + "}");
        assertThat(OutgoingRequest.forModel(CATALOG.require("converse"), named).text()).isEqualTo(own);
    }

    @Test
    void aMantleBodyIsGivenTheRoutedModelWhenItNamesNone() {
        Submission s = parse("{\"model\":\"chat\",\"chatCompletions\":" + AllBackends.CHAT + "}");
        assertThat(OutgoingRequest.forModel(CATALOG.require("chat-backup"), s.routedTo("chat-backup")).text())
                .isEqualTo("{\"model\":\"openai.gpt-oss-120b\"," + AllBackends.CHAT.substring(1));

        Submission bulk = parse("{\"model\":\"chat\",\"priority\":\"bulk\",\"chatCompletions\":" + AllBackends.CHAT
                + "}");
        assertThat(OutgoingRequest.forModel(CATALOG.require("chat"), bulk).text())
                .isEqualTo("{\"model\":\"openai.gpt-5.6\",\"service_tier\":\"flex\"," + AllBackends.CHAT.substring(1));
    }

    @Test
    void anInvokeModelRequestKeepsItsNativeBodyAndCarriesTheTierBesideIt() {
        Submission s = parse("{\"model\":\"anthropic\",\"serviceTier\":\"flex\",\"invokeModel\":  "
                + AllBackends.ANTHROPIC + " }");
        Payload stored = OutgoingRequest.forModel(CATALOG.require("anthropic"), s);
        InvokeModelRequest request = InvokeModelRequest.read(stored.text());
        assertThat(new String(request.body(), StandardCharsets.UTF_8)).isEqualTo(AllBackends.ANTHROPIC);
        assertThat(request.tier()).contains(ServiceTier.FLEX);

        Submission plain = parse("{\"model\":\"nova\",\"invokeModel\":" + AllBackends.NOVA + "}");
        assertThat(InvokeModelRequest.read(OutgoingRequest.forModel(CATALOG.require("nova"), plain).text()).tier())
                .isEmpty();
    }

    private Submission parse(String body) {
        return parser.parse(body.getBytes(StandardCharsets.UTF_8));
    }
}
