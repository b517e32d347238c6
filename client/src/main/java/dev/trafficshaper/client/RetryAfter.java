package dev.trafficshaper.client;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/** Reads a {@code Retry-After} header: delay-seconds, or an HTTP date (RFC 9110 §10.2.3). */
final class RetryAfter {

    private RetryAfter() {
    }

    /** The delay the header asks for, never negative and not yet capped; null when absent or unreadable. */
    static Duration parse(String header, Instant now) {
        if (header == null || header.isBlank()) {
            return null;
        }
        String value = header.strip();
        if (value.chars().allMatch(Character::isDigit)) {
            try {
                return Duration.ofSeconds(Long.parseLong(value));
            } catch (NumberFormatException e) {
                return Duration.ofSeconds(Long.MAX_VALUE);
            }
        }
        try {
            Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            return at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO;
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
