package dev.trafficshaper.model;

/**
 * How many input tokens an image or a document costs, per model. Bedrock's tokenizers are not
 * available offline, so the shaper reserves by a published rule and settles to what Bedrock
 * reports. The defaults are Anthropic's: an image costs width × height / 750 tokens, at most
 * about 1,600 (Claude scales larger images down); a PDF page costs up to about 3,000 tokens (its
 * text plus the page as an image), and the reservation takes the upper end.
 *
 * @param pixelsPerImageToken   image pixels per token
 * @param maxTokensPerImage     the most one image costs; also the cost of an image whose size
 *                              cannot be read (a reference to S3 or a URL, an unknown format)
 * @param tokensPerDocumentPage what one page of a PDF costs
 */
public record MediaRule(long pixelsPerImageToken, long maxTokensPerImage, long tokensPerDocumentPage) {

    public static final MediaRule ANTHROPIC = new MediaRule(750, 1_600, 3_000);

    public MediaRule {
        if (pixelsPerImageToken < 1 || maxTokensPerImage < 1 || tokensPerDocumentPage < 1) {
            throw new IllegalArgumentException("media token rule values must be positive");
        }
    }

    public static MediaRule defaults() {
        return ANTHROPIC;
    }

    /** Tokens of an image of the given size. */
    public long imageTokens(long width, long height) {
        long pixels = Math.multiplyExact(Math.max(1, width), Math.max(1, height));
        return Math.min(maxTokensPerImage, (pixels + pixelsPerImageToken - 1) / pixelsPerImageToken);
    }
}
