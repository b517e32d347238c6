package dev.trafficshaper.submission;

import dev.trafficshaper.model.MediaRule;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The documented rule that turns prompt parts into input tokens.
 *
 * <ul>
 *   <li>Text: four characters a token, each piece rounded up on its own (the usual rule of thumb
 *       for English with BPE vocabularies).</li>
 *   <li>Images: width × height / {@code pixelsPerImageToken}, at most {@code maxTokensPerImage};
 *       the size is read from the PNG, JPEG, GIF or WebP header. An image whose size cannot be
 *       read costs the maximum.</li>
 *   <li>Documents: a PDF costs {@code tokensPerDocumentPage} per page (pages counted from its page
 *       objects; when they are compressed out of sight, one page per started 50 KB); text formats
 *       (txt, md, csv, html) cost their characters; office formats (doc, docx, xls, xlsx), which
 *       are compressed text, one token per byte; a referenced document, one page.</li>
 * </ul>
 * Every choice errs on the high side: an overestimate idles a little quota until settlement, an
 * underestimate risks a throttle.
 */
public final class TokenRule {

    public static final int CHARS_PER_TOKEN = 4;
    public static final int TOKENS_PER_TURN = 3;
    static final int BYTES_PER_UNREADABLE_PDF_PAGE = 50 * 1024;
    private static final Set<String> TEXT_FORMATS = Set.of("txt", "md", "csv", "html", "text", "plain", "markdown");
    private static final Pattern PDF_PAGE = Pattern.compile("/Type\\s*/Page(?![A-Za-z])");

    private TokenRule() {
    }

    public static long count(List<PromptPart> parts, MediaRule rule) {
        long tokens = 0;
        for (PromptPart part : parts) {
            tokens = Math.addExact(tokens, count(part, rule));
        }
        return tokens;
    }

    public static long count(PromptPart part, MediaRule rule) {
        if (part instanceof PromptPart.Text text) {
            return text(text.text());
        }
        if (part instanceof PromptPart.Image image) {
            return image.bytes() == null ? rule.maxTokensPerImage()
                    : ImageSize.of(image.bytes()).map(size -> rule.imageTokens(size.width(), size.height()))
                            .orElse(rule.maxTokensPerImage());
        }
        if (part instanceof PromptPart.Document document) {
            return document(document, rule);
        }
        return 0;
    }

    public static long text(String text) {
        long chars = text.codePointCount(0, text.length());
        return (chars + CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN;
    }

    private static long document(PromptPart.Document document, MediaRule rule) {
        if (document.text() != null) {
            return text(document.text());
        }
        byte[] bytes = document.bytes();
        if (bytes == null) {
            return rule.tokensPerDocumentPage();
        }
        String format = document.format() == null ? "" : document.format().toLowerCase(Locale.ROOT);
        if (format.equals("pdf") || format.endsWith("/pdf") || startsWith(bytes, "%PDF")) {
            return Math.multiplyExact(pdfPages(bytes), rule.tokensPerDocumentPage());
        }
        if (TEXT_FORMATS.contains(format) || format.startsWith("text/")) {
            return text(new String(bytes, StandardCharsets.UTF_8));
        }
        return bytes.length;
    }

    /** Page objects of a PDF, or one per started 50 KB when none is visible (compressed object streams). */
    static long pdfPages(byte[] pdf) {
        Matcher pages = PDF_PAGE.matcher(new String(pdf, StandardCharsets.ISO_8859_1));
        long count = 0;
        while (pages.find()) {
            count++;
        }
        return count > 0 ? count : Math.max(1, (pdf.length + BYTES_PER_UNREADABLE_PDF_PAGE - 1)
                / BYTES_PER_UNREADABLE_PDF_PAGE);
    }

    private static boolean startsWith(byte[] bytes, String prefix) {
        byte[] p = prefix.getBytes(StandardCharsets.ISO_8859_1);
        if (bytes.length < p.length) {
            return false;
        }
        for (int i = 0; i < p.length; i++) {
            if (bytes[i] != p[i]) {
                return false;
            }
        }
        return true;
    }
}
