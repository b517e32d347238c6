package dev.trafficshaper.loadtest.harness;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Request ids of a load test: {@code lt-<run>-<arm>-<index>}, e.g. {@code lt-20250301t101500k3x9-shaper-17}.
 * Each arm has its own ids, so the shaper's idempotent submission never merges two arms' requests,
 * and any outcome (a webhook, an event, a worker's line) names its run, arm and schedule index.
 * Ids stay within {@code [A-Za-z0-9-]} and 63 characters, which every API of the project accepts.
 */
public final class RequestIds {

    public static final String PREFIX = "lt-";
    private static final Pattern RUN_ID = Pattern.compile("[a-z0-9]{1,24}");
    private static final Pattern ID = Pattern.compile("lt-([a-z0-9]{1,24})-([a-z-]+)-(\\d{1,9})");
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd't'HHmmss")
            .withZone(ZoneOffset.UTC);
    private static final String ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

    /** What an id names. */
    public record Parts(String runId, ArmKind arm, int index) {
    }

    private RequestIds() {
    }

    /** A new run id: the UTC time to the second and four random characters. */
    public static String newRunId(Instant now, SplittableRandom random) {
        StringBuilder id = new StringBuilder(STAMP.format(now));
        for (int i = 0; i < 4; i++) {
            id.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return id.toString();
    }

    public static String requireRunId(String runId) {
        if (runId == null || !RUN_ID.matcher(runId).matches()) {
            throw new IllegalArgumentException("a run id is 1-24 lowercase letters and digits, was '" + runId + "'");
        }
        return runId;
    }

    public static String of(String runId, ArmKind arm, int index) {
        return PREFIX + requireRunId(runId) + "-" + arm.wireName() + "-" + index;
    }

    /** The parts of a load-test id; empty for any other id. */
    public static Optional<Parts> parse(String requestId) {
        if (requestId == null) {
            return Optional.empty();
        }
        Matcher matcher = ID.matcher(requestId);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Parts(matcher.group(1), ArmKind.fromWireName(matcher.group(2)),
                    Integer.parseInt(matcher.group(3))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
