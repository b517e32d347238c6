package dev.trafficshaper.submission;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trafficshaper.model.MediaRule;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class TokenRuleTest {

    private static final MediaRule RULE = MediaRule.defaults();
    private static final ObjectMapper JSON = new ObjectMapper();

    static byte[] image(String format, int width, int height) throws IOException {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, format, out);
        return out.toByteArray();
    }

    @ParameterizedTest
    @ValueSource(strings = {"png", "jpeg", "gif"})
    void anImagesSizeIsReadFromItsHeader(String format) throws IOException {
        assertThat(ImageSize.of(image(format, 320, 200))).contains(new ImageSize(320, 200));
    }

    @Test
    void anImageCostsItsPixelsOverSevenHundredFiftyUpToTheMaximum() throws IOException {
        assertThat(TokenRule.count(new PromptPart.Image("png", image("png", 300, 250)), RULE)).isEqualTo(100);
        assertThat(TokenRule.count(new PromptPart.Image("png", image("png", 2000, 2000)), RULE)).isEqualTo(1_600);
        assertThat(TokenRule.count(new PromptPart.Image("png", null), RULE)).as("a referenced image").isEqualTo(1_600);
        assertThat(TokenRule.count(new PromptPart.Image("png", new byte[40]), RULE)).as("unreadable").isEqualTo(1_600);
    }

    @Test
    void aPdfCostsItsPagesAndATextDocumentItsCharacters() {
        byte[] threePages = ("%PDF-1.4\n1 0 obj << /Type /Pages /Count 3 >>\n2 0 obj << /Type /Page >>\n"
                + "3 0 obj << /Type /Page >>\n4 0 obj <</Type/Page>>\n").getBytes(StandardCharsets.ISO_8859_1);
        assertThat(TokenRule.count(new PromptPart.Document("pdf", threePages, null), RULE)).isEqualTo(9_000);
        assertThat(TokenRule.count(new PromptPart.Document("txt", "x".repeat(400).getBytes(), null), RULE))
                .isEqualTo(100);
        assertThat(TokenRule.count(new PromptPart.Document("docx", new byte[1234], null), RULE)).isEqualTo(1234);
        assertThat(TokenRule.count(new PromptPart.Document("md", null, "y".repeat(41)), RULE)).isEqualTo(11);
    }

    @Test
    void everyShapeCountsItsImagesByTheSameRule() throws Exception {
        String b64 = Base64.getEncoder().encodeToString(image("png", 750, 100));
        List<PromptContent> prompts = List.of(
                PromptReaders.converse(JSON.readTree("{\"messages\":[{\"role\":\"user\",\"content\":[{\"image\":"
                        + "{\"format\":\"png\",\"source\":{\"bytes\":\"" + b64 + "\"}}}]}]}")),
                PromptReaders.anthropic(JSON.readTree("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":"
                        + "\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"" + b64
                        + "\"}}]}]}")),
                PromptReaders.chatCompletions(JSON.readTree("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":"
                        + "\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64," + b64 + "\"}}]}]}")),
                PromptReaders.responses(JSON.readTree("{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":"
                        + "\"input_image\",\"image_url\":\"data:image/png;base64," + b64 + "\"}]}]}")));
        for (PromptContent prompt : prompts) {
            assertThat(prompt.tokens(RULE)).as(prompt.toString()).isEqualTo(100 + TokenRule.TOKENS_PER_TURN);
        }
    }

    @Test
    void theCacheablePrefixEndsAtTheLastCachePoint() throws Exception {
        PromptContent converse = PromptReaders.converse(JSON.readTree("""
                {"system":[{"text":"%s"},{"cachePoint":{"type":"default"}}],
                 "messages":[{"role":"user","content":[{"text":"question"}]}]}""".formatted("s".repeat(400))));
        PromptContent anthropic = PromptReaders.anthropic(JSON.readTree("""
                {"system":[{"type":"text","text":"%s","cache_control":{"type":"ephemeral"}}],
                 "messages":[{"role":"user","content":"question"}]}""".formatted("s".repeat(400))));
        for (PromptContent prompt : List.of(converse, anthropic)) {
            assertThat(prompt.cacheablePrefixTokens(RULE)).isEqualTo(100);
            assertThat(prompt.tokens(RULE)).isEqualTo(100 + 2 + TokenRule.TOKENS_PER_TURN);
            assertThat(prompt.cacheablePrefixKey()).isPresent();
        }
        assertThat(converse.cacheablePrefixKey()).isEqualTo(anthropic.cacheablePrefixKey());
        assertThat(converse.lastUserText()).isEqualTo("question");
    }
}
