package dev.trafficshaper.loadtest.harness;

import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which requests of each arm have a terminal outcome so far, counted once each however many lines
 * (duplicate webhooks) arrive: a local run is over when every arm has one per scheduled request.
 */
public final class TerminalTally {

    private final int expected;
    private final Map<ArmKind, Set<String>> terminal = new EnumMap<>(ArmKind.class);

    public TerminalTally(List<ArmKind> arms, int expected) {
        this.expected = expected;
        for (ArmKind arm : arms) {
            terminal.put(arm, new HashSet<>());
        }
    }

    /** A sink that counts what it passes on to {@code target}. */
    public OutcomeSink counting(OutcomeSink target) {
        return new OutcomeSink() {
            @Override
            public void write(OutcomeLine line) {
                target.write(line);
                if (line.isTerminal()) {
                    seen(ArmKind.fromWireName(line.arm()), line.id());
                }
            }

            @Override
            public void flush() {
                target.flush();
            }

            @Override
            public void close() {
                target.close();
            }
        };
    }

    private synchronized void seen(ArmKind arm, String id) {
        Set<String> ids = terminal.get(arm);
        if (ids != null && ids.add(id) && complete()) {
            notifyAll();
        }
    }

    public synchronized int terminal(ArmKind arm) {
        Set<String> ids = terminal.get(arm);
        return ids == null ? 0 : ids.size();
    }

    public int expected() {
        return expected;
    }

    public synchronized boolean complete() {
        return terminal.values().stream().allMatch(ids -> ids.size() >= expected);
    }

    /**
     * Waits until the run is complete or {@code timeoutMillis} of wall time have passed, whichever
     * comes first, and says whether it is complete; returns at once when it already is.
     */
    public synchronized boolean awaitComplete(long timeoutMillis) throws InterruptedException {
        long until = System.nanoTime() + timeoutMillis * 1_000_000;
        while (!complete()) {
            long left = (until - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }
}
