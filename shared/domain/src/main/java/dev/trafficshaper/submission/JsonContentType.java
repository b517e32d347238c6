package dev.trafficshaper.submission;

import java.util.Locale;

/**
 * The one media type a submission may declare: {@code application/json}, optionally with a
 * {@code charset} parameter naming UTF-8 (the only encoding JSON allows). Anything else, a
 * missing header included, is answered {@code 415} before the body is read as JSON.
 */
public final class JsonContentType {

    private JsonContentType() {
    }

    /** @throws UnsupportedContentTypeException when {@code header} (nullable) is not JSON in UTF-8 */
    public static void require(String header) {
        if (header == null || header.isBlank()) {
            throw new UnsupportedContentTypeException("Content-Type is required and must be application/json");
        }
        String[] parts = header.split(";", -1);
        String type = parts[0].strip().toLowerCase(Locale.ROOT);
        if (!type.equals("application/json")) {
            throw new UnsupportedContentTypeException("Content-Type must be application/json, was '"
                    + printable(header) + "'");
        }
        for (int i = 1; i < parts.length; i++) {
            String parameter = parts[i].strip();
            int equals = parameter.indexOf('=');
            String name = (equals < 0 ? parameter : parameter.substring(0, equals)).strip().toLowerCase(Locale.ROOT);
            String value = equals < 0 ? "" : parameter.substring(equals + 1).strip().replace("\"", "");
            if (!name.equals("charset") || !(value.equalsIgnoreCase("utf-8") || value.equalsIgnoreCase("utf8"))) {
                throw new UnsupportedContentTypeException("Content-Type application/json takes only charset=utf-8,"
                        + " was '" + printable(header) + "'");
            }
        }
    }

    private static String printable(String text) {
        String clipped = text.length() > 100 ? text.substring(0, 100) + "..." : text;
        return clipped.replaceAll("\\p{Cntrl}", "?");
    }
}
