package dev.trafficshaper.payload;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RawJsonTest {

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aMemberIsCutOutExactlyAsWritten() {
        byte[] json = utf8("{ \"a\" : 1, \"s\": \"t\\\"x\", \"body\" :  {\"x\": 1.50,  \"é\": \"\\u00e9\","
                + " \"n\": [1, {\"b\": {}}]} , \"z\": null}");
        assertThat(new String(RawJson.member(json, "body").orElseThrow(), StandardCharsets.UTF_8))
                .isEqualTo("{\"x\": 1.50,  \"é\": \"\\u00e9\", \"n\": [1, {\"b\": {}}]}");
        assertThat(RawJson.member(json, "a").map(String::new)).contains("1");
        assertThat(RawJson.member(json, "s").map(String::new)).contains("\"t\\\"x\"");
        assertThat(RawJson.member(json, "missing")).isEmpty();
    }

    @Test
    void aMemberIsAddedFirstWithoutTouchingTheRest() {
        assertThat(new String(RawJson.withFirstMember(utf8("  { \"b\" : 2 }"), "a", "1"), StandardCharsets.UTF_8))
                .isEqualTo("  {\"a\":1, \"b\" : 2 }");
        assertThat(new String(RawJson.withFirstMember(utf8("{ }"), "a", "\"x\""), StandardCharsets.UTF_8))
                .isEqualTo("{\"a\":\"x\" }");
    }
}
