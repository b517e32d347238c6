package dev.trafficshaper.local;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One HTTP response read off a raw socket, for tests that write requests byte for byte: the
 * status ({@code -1} when the status line is not one), the head, the body and both as sent.
 */
record RawResponse(int status, String head, String body, String text) {

    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)content-length:\\s*(\\d+)");

    /** Reads the head, then as many body bytes as it declares. */
    static RawResponse read(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int next = in.read();
            if (next < 0) {
                break;
            }
            head.append((char) next);
        }
        Matcher length = CONTENT_LENGTH.matcher(head);
        int bodyLength = length.find() ? Integer.parseInt(length.group(1)) : 0;
        String body = new String(in.readNBytes(bodyLength), StandardCharsets.UTF_8);
        String[] statusLine = head.toString().split(" ", 3);
        int status = statusLine.length > 1 && statusLine[1].matches("\\d{3}") ? Integer.parseInt(statusLine[1]) : -1;
        return new RawResponse(status, head.toString(), body, head + body);
    }
}
