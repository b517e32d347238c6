package dev.trafficshaper.simulator.bedrock;

import java.util.HashMap;
import java.util.Map;

/**
 * The prompt cache of one model on one endpoint: a prefix seen within the last five minutes (on
 * the simulator's clock) is read from the cache, otherwise it is written to it. Each hit renews
 * the entry, as Bedrock's five-minute TTL does.
 */
final class PromptCache {

    static final long TTL_MILLIS = 5 * 60_000;

    private final Map<String, Long> expiries = new HashMap<>();

    /** Whether {@code key} was cached at {@code nowMillis}; it is cached from now on either way. */
    synchronized boolean lookUpAndStore(String key, long nowMillis) {
        Long expiry = expiries.get(key);
        boolean hit = expiry != null && expiry > nowMillis;
        expiries.put(key, nowMillis + TTL_MILLIS);
        if (expiries.size() > 10_000) {
            expiries.values().removeIf(e -> e <= nowMillis);
        }
        return hit;
    }
}
