package dev.trafficshaper.local.http;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads one HTTP/1.1 request strictly (RFC 9112), refusing what a lenient reader would guess at:
 * a head over {@value #MAX_HEAD_BYTES} bytes ({@code 431}), a malformed request line, a method that
 * is not a token, a target that is not a path, a header line with a bare CR or another control
 * character, whitespace before a header's colon, folded lines, a {@code Content-Length} that is
 * not one decimal number, both {@code Content-Length} and {@code Transfer-Encoding}, and any
 * transfer coding but {@code chunked}. The body is read up to the limit and no further.
 */
final class RequestReader {

    static final int MAX_HEAD_BYTES = 16 * 1024;
    static final int MAX_HEADERS = 100;
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    private static final Pattern METHOD = Pattern.compile("[A-Z]{1,20}");
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,18}");
    private static final Pattern TARGET = Pattern.compile("/[\\x21-\\x7e&&[^#]]*");
    private static final int CHUNK = 64 * 1024;

    /** What reading does at its stages; the server moves the connection's deadline on them. */
    interface Progress {
        void headStarted();

        void bodyStarted();
    }

    private final InputStream in;
    private final OutputStream out;
    private final int maxBodyBytes;
    private final long discardMaxBytes;

    RequestReader(InputStream in, OutputStream out, int maxBodyBytes, long discardMaxBytes) {
        this.in = in;
        this.out = out;
        this.maxBodyBytes = maxBodyBytes;
        this.discardMaxBytes = discardMaxBytes;
    }

    /** The next request, or null when the client closed the connection between requests. */
    HttpRequest read(Progress progress) throws IOException, MalformedRequestException {
        int first = in.read();
        while (first == '\r' || first == '\n') {
            first = in.read(); // RFC 9112 §2.2: empty lines before a request line are ignored.
        }
        if (first < 0) {
            return null;
        }
        progress.headStarted();
        List<String> lines = headLines(first);
        String[] requestLine = lines.get(0).split(" ", -1);
        if (requestLine.length != 3) {
            throw new MalformedRequestException(400, "malformed request line; expected METHOD /path HTTP/1.1", null);
        }
        String method = requestLine[0];
        if (!METHOD.matcher(method).matches()) {
            throw new MalformedRequestException(400, "malformed method '" + printable(method) + "'", "method");
        }
        if (!requestLine[2].equals("HTTP/1.1") && !requestLine[2].equals("HTTP/1.0")) {
            throw new MalformedRequestException(505, "only HTTP/1.1 and HTTP/1.0 are served", null);
        }
        String target = requestLine[1];
        if (!TARGET.matcher(target).matches()) {
            throw new MalformedRequestException(400, "the request target must be a path starting with /", "path");
        }
        int query = target.indexOf('?');
        String rawPath = query < 0 ? target : target.substring(0, query);
        String rawQuery = query < 0 ? null : target.substring(query + 1);
        Map<String, List<String>> headers = headers(lines);
        byte[] body = body(headers, progress);
        if (requestLine[2].equals("HTTP/1.0") && !headers.containsKey("connection")) {
            headers.put("connection", List.of("close"));
        }
        return new HttpRequest(method, rawPath, rawQuery, headers, body);
    }

    /** The head's lines, without their line ends, after checking every byte. */
    private List<String> headLines(int first) throws IOException, MalformedRequestException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        List<String> lines = new ArrayList<>();
        int c = first;
        while (true) {
            if (c < 0) {
                throw new EOFException("the client closed the connection inside a request head");
            }
            if (head.size() + totalLength(lines) >= MAX_HEAD_BYTES) {
                throw new MalformedRequestException(431, "request head is over " + MAX_HEAD_BYTES + " bytes", null);
            }
            if (c == '\n') {
                String line = head.toString(StandardCharsets.ISO_8859_1);
                if (line.endsWith("\r")) {
                    line = line.substring(0, line.length() - 1);
                }
                head.reset();
                if (line.isEmpty()) {
                    return lines;
                }
                checkCharacters(line, lines.isEmpty());
                lines.add(line);
                if (lines.size() > MAX_HEADERS + 1) {
                    throw new MalformedRequestException(431, "more than " + MAX_HEADERS + " headers", null);
                }
            } else {
                head.write(c);
            }
            c = in.read();
        }
    }

    private static int totalLength(List<String> lines) {
        int total = 0;
        for (String line : lines) {
            total += line.length() + 2;
        }
        return total;
    }

    private static void checkCharacters(String line, boolean requestLine) throws MalformedRequestException {
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
                String field = requestLine ? null : headerName(line);
                throw new MalformedRequestException(400, (ch == '\r' ? "a bare CR" : "a control character")
                        + " in " + (requestLine ? "the request line" : "header " + field), field);
            }
        }
    }

    private static String headerName(String line) {
        int colon = line.indexOf(':');
        return printable(colon < 0 ? line : line.substring(0, colon));
    }

    private static Map<String, List<String>> headers(List<String> lines) throws MalformedRequestException {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.startsWith(" ") || line.startsWith("\t")) {
                throw new MalformedRequestException(400, "folded header lines are not accepted", null);
            }
            int colon = line.indexOf(':');
            String name = colon < 0 ? line : line.substring(0, colon);
            if (colon < 0 || !TOKEN.matcher(name).matches()) {
                throw new MalformedRequestException(400, "malformed header line '" + printable(line) + "'", null);
            }
            String value = line.substring(colon + 1).strip();
            headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(value);
        }
        return headers;
    }

    private byte[] body(Map<String, List<String>> headers, Progress progress)
            throws IOException, MalformedRequestException {
        List<String> lengths = headers.get("content-length");
        List<String> codings = headers.get("transfer-encoding");
        if (lengths != null && codings != null) {
            throw new MalformedRequestException(400, "a request must not carry both Content-Length and"
                    + " Transfer-Encoding", "Content-Length");
        }
        boolean expectContinue = "100-continue".equalsIgnoreCase(first(headers, "expect"));
        if (codings != null) {
            if (codings.size() != 1 || !codings.get(0).equalsIgnoreCase("chunked")) {
                throw new MalformedRequestException(400, "Transfer-Encoding must be chunked", "Transfer-Encoding");
            }
            progress.bodyStarted();
            continueIfExpected(expectContinue);
            return chunked();
        }
        if (lengths == null) {
            return new byte[0];
        }
        String declared = lengths.get(0);
        for (String value : lengths) {
            for (String part : value.split(",", -1)) {
                if (!part.strip().equals(declared) || !DIGITS.matcher(declared).matches()) {
                    throw new MalformedRequestException(400, "Content-Length must be one decimal number, was '"
                            + printable(String.join(", ", lengths)) + "'", "Content-Length");
                }
            }
        }
        long length = Long.parseLong(declared);
        progress.bodyStarted();
        if (length > maxBodyBytes) {
            if (!expectContinue && length <= discardMaxBytes) {
                skip(length);
            }
            throw tooLarge(length + " bytes");
        }
        continueIfExpected(expectContinue);
        byte[] body = in.readNBytes((int) length);
        if (body.length < length) {
            throw new EOFException("the client closed the connection inside a request body");
        }
        return body;
    }

    private byte[] chunked() throws IOException, MalformedRequestException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        long seen = 0;
        while (true) {
            String sizeLine = crlfLine();
            int extension = sizeLine.indexOf(';');
            String hex = (extension < 0 ? sizeLine : sizeLine.substring(0, extension)).strip();
            if (!hex.matches("[0-9A-Fa-f]{1,15}")) {
                throw new MalformedRequestException(400, "malformed chunk size", "Transfer-Encoding");
            }
            long size = Long.parseLong(hex, 16);
            if (size == 0) {
                while (!crlfLine().isEmpty()) {
                    // Trailer fields are read and dropped.
                }
                if (seen > maxBodyBytes) {
                    throw tooLarge("more than " + maxBodyBytes + " bytes");
                }
                return body.toByteArray();
            }
            seen += size;
            if (seen > maxBodyBytes) {
                // Past the limit: dropped as it comes, so a client still sending receives its 400.
                if (seen > discardMaxBytes) {
                    throw tooLarge("more than " + maxBodyBytes + " bytes");
                }
                skip(size);
            } else {
                byte[] chunk = in.readNBytes((int) size);
                if (chunk.length < size) {
                    throw new EOFException("the client closed the connection inside a chunk");
                }
                body.write(chunk);
            }
            if (!crlfLine().isEmpty()) {
                throw new MalformedRequestException(400, "malformed chunk end", "Transfer-Encoding");
            }
        }
    }

    private String crlfLine() throws IOException, MalformedRequestException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new EOFException("the client closed the connection inside a chunked body");
            }
            if (line.size() > 1024) {
                throw new MalformedRequestException(400, "malformed chunked body", "Transfer-Encoding");
            }
            line.write(c);
        }
        String text = line.toString(StandardCharsets.ISO_8859_1);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }

    private MalformedRequestException tooLarge(String size) {
        return new MalformedRequestException(400, "request body is " + size + ", over the limit of " + maxBodyBytes
                + " bytes; nothing was stored", "");
    }

    private void continueIfExpected(boolean expectContinue) throws IOException {
        if (expectContinue) {
            out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
    }

    private void skip(long bytes) throws IOException {
        byte[] sink = new byte[CHUNK];
        long left = bytes;
        while (left > 0) {
            int read = in.read(sink, 0, (int) Math.min(sink.length, left));
            if (read < 0) {
                return;
            }
            left -= read;
        }
    }

    private static String first(Map<String, List<String>> headers, String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    static String printable(String text) {
        String clipped = text.length() > 80 ? text.substring(0, 80) + "..." : text;
        return clipped.replaceAll("[^\\x20-\\x7e]", "?");
    }
}
