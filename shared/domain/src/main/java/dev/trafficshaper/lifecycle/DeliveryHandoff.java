package dev.trafficshaper.lifecycle;

import dev.trafficshaper.request.RequestRecord;

/**
 * Hands a finished request's delivery off — its outcome event published, its webhook queued — and
 * records on the request that it did, so that a repeat does nothing. Whoever writes a terminal
 * state calls it before resuming the workflow ("write, hand off, then signal"): a crash in between
 * leaves the workflow waiting, and the path that finishes it later hands the delivery off then.
 */
public interface DeliveryHandoff {

    /** Does nothing. */
    DeliveryHandoff NONE = terminal -> { };

    /**
     * Hands off the delivery of {@code terminal} unless it already is. A failure is recorded on
     * the request (its delivery state says why) and then thrown.
     */
    void handOff(RequestRecord terminal);
}
