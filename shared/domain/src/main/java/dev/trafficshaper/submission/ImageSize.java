package dev.trafficshaper.submission;

import java.util.Optional;

/**
 * An image's pixel size read from its header, without decoding it: PNG (IHDR), GIF (logical
 * screen), JPEG (the first start-of-frame marker) and WebP (VP8, VP8L and VP8X chunks).
 */
public record ImageSize(int width, int height) {

    public static Optional<ImageSize> of(byte[] b) {
        if (b == null || b.length < 16) {
            return Optional.empty();
        }
        if (u8(b, 0) == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G' && b.length >= 24) {
            return size(be32(b, 16), be32(b, 20));
        }
        if (b[0] == 'G' && b[1] == 'I' && b[2] == 'F') {
            return size(le16(b, 6), le16(b, 8));
        }
        if (u8(b, 0) == 0xFF && u8(b, 1) == 0xD8) {
            return jpeg(b);
        }
        if (b[0] == 'R' && b[1] == 'I' && b[2] == 'F' && b[3] == 'F' && b[8] == 'W' && b[9] == 'E' && b[10] == 'B'
                && b[11] == 'P' && b.length >= 30) {
            return webp(b);
        }
        return Optional.empty();
    }

    private static Optional<ImageSize> jpeg(byte[] b) {
        int i = 2;
        while (i + 9 < b.length) {
            if (u8(b, i) != 0xFF) {
                i++;
                continue;
            }
            int marker = u8(b, i + 1);
            if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0xFF) {
                i += marker == 0xFF ? 1 : 2;
                continue;
            }
            int length = be16(b, i + 2);
            boolean startOfFrame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8
                    && marker != 0xCC;
            if (startOfFrame) {
                return size(be16(b, i + 7), be16(b, i + 5));
            }
            if (length < 2) {
                return Optional.empty();
            }
            i += 2 + length;
        }
        return Optional.empty();
    }

    private static Optional<ImageSize> webp(byte[] b) {
        String chunk = new String(b, 12, 4, java.nio.charset.StandardCharsets.ISO_8859_1);
        return switch (chunk) {
            case "VP8 " -> size(le16(b, 26) & 0x3FFF, le16(b, 28) & 0x3FFF);
            case "VP8L" -> {
                int bits = u8(b, 21) | u8(b, 22) << 8 | u8(b, 23) << 16 | u8(b, 24) << 24;
                yield size((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1);
            }
            case "VP8X" -> size(1 + (u8(b, 24) | u8(b, 25) << 8 | u8(b, 26) << 16),
                    1 + (u8(b, 27) | u8(b, 28) << 8 | u8(b, 29) << 16));
            default -> Optional.empty();
        };
    }

    private static Optional<ImageSize> size(long width, long height) {
        return width > 0 && height > 0 && width <= 1_000_000 && height <= 1_000_000
                ? Optional.of(new ImageSize((int) width, (int) height)) : Optional.empty();
    }

    private static int u8(byte[] b, int i) {
        return b[i] & 0xFF;
    }

    private static int be16(byte[] b, int i) {
        return u8(b, i) << 8 | u8(b, i + 1);
    }

    private static int le16(byte[] b, int i) {
        return u8(b, i) | u8(b, i + 1) << 8;
    }

    private static long be32(byte[] b, int i) {
        return (long) u8(b, i) << 24 | u8(b, i + 1) << 16 | u8(b, i + 2) << 8 | u8(b, i + 3);
    }
}
