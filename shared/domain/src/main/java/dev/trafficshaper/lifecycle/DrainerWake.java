package dev.trafficshaper.lifecycle;

/**
 * Starts a drainer for a model if none is running. Cheap and idempotent: a drainer that finds
 * the lease taken exits at once, so waking one too many is harmless, and one too few is caught
 * by the 1-minute safety-net schedule.
 */
public interface DrainerWake {

    void wake(String modelKey);
}
