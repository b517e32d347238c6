package dev.trafficshaper.pacing;

import dev.trafficshaper.quota.Quota;
import dev.trafficshaper.quota.QuotaDimension;
import dev.trafficshaper.quota.TokenUsage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A fake-clock drain of a backlog through a pacer into a fake meter of one token dimension: the
 * meter answers each admission at once (accepted, or throttled and the request back at the head),
 * an accepted call settles after its latency. Small fixed-window, sliding-window and token-bucket
 * meters with strict rules (a refund corrects the charge it belongs to, while that still counts).
 */
final class MeteredRun {

    interface Meter {
        /** Reserves {@code amount} now, or returns null (throttled). */
        Object reserve(long amount, long nowMillis);

        void settle(Object handle, long reserved, long actual, long nowMillis);
    }

    /** Clock-minute windows: a minute's charges stay in it, refunded only if settled within it. */
    static final class FixedWindow implements Meter {
        private final long quota;
        private long minute = Long.MIN_VALUE;
        private long used;

        FixedWindow(long quota) {
            this.quota = quota;
        }

        @Override
        public Object reserve(long amount, long nowMillis) {
            roll(nowMillis);
            if (used + amount > quota) {
                return null;
            }
            used += amount;
            return minute;
        }

        @Override
        public void settle(Object handle, long reserved, long actual, long nowMillis) {
            roll(nowMillis);
            if ((Long) handle == minute || actual > reserved) {
                used += actual - reserved;
            }
        }

        private void roll(long nowMillis) {
            long current = Math.floorDiv(nowMillis, 60_000L);
            if (current != minute) {
                minute = current;
                used = 0;
            }
        }
    }

    /** A sliding 60 s window: each charge counts 60 s, corrected by its settlement. */
    static final class SlidingWindow implements Meter {
        private final long quota;
        private final ArrayDeque<long[]> entries = new ArrayDeque<>(); // {at, amount}

        SlidingWindow(long quota) {
            this.quota = quota;
        }

        @Override
        public Object reserve(long amount, long nowMillis) {
            while (!entries.isEmpty() && entries.peekFirst()[0] <= nowMillis - 60_000) {
                entries.pollFirst();
            }
            long sum = entries.stream().mapToLong(e -> e[1]).sum();
            if (sum + amount > quota) {
                return null;
            }
            long[] entry = {nowMillis, amount};
            entries.addLast(entry);
            return entry;
        }

        @Override
        public void settle(Object handle, long reserved, long actual, long nowMillis) {
            ((long[]) handle)[1] += actual - reserved;
        }
    }

    /** A bucket of one minute's quota, refilled at the quota per minute, refunded at settlement. */
    static final class TokenBucket implements Meter {
        private final long quota;
        private double level;
        private long updatedAt;

        TokenBucket(long quota) {
            this.quota = quota;
            this.level = quota;
        }

        @Override
        public Object reserve(long amount, long nowMillis) {
            refill(nowMillis);
            if (amount > level) {
                return null;
            }
            level -= amount;
            return this;
        }

        @Override
        public void settle(Object handle, long reserved, long actual, long nowMillis) {
            refill(nowMillis);
            level = Math.min(quota, level + reserved - actual);
        }

        private void refill(long nowMillis) {
            level = Math.min(quota, level + (nowMillis - updatedAt) * quota / 60_000.0);
            updatedAt = nowMillis;
        }
    }

    record Sent(long atMillis, long amount, boolean throttled) {
    }

    private record Open(long atMillis, Admission admission, Object handle) {
    }

    /** A throttled request goes back to the head; the drainer asks the pacer again this much later. */
    static final long THROTTLE_ROUND_TRIP_MILLIS = 100;

    private MeteredRun() {
    }

    /**
     * Drains {@code requests} calls, all queued at {@code fromMillis}, each reserving
     * {@code reserved} tokens and using {@code actual}, answered after {@code latencyMillis}.
     */
    static List<Sent> drain(Pacer pacer, Meter meter, int requests, long reserved, long actual, long latencyMillis,
            long fromMillis, long untilMillis) {
        return drain(pacer, meter, requests, TokenUsage.of(reserved, 0), TokenUsage.of(actual, 0), latencyMillis, 0,
                fromMillis, untilMillis);
    }

    /**
     * The same for calls estimated as {@code expected} (its output the call's {@code maxTokens}) that
     * use {@code used}, with each throttle answered {@code refusalMillis} after the call went (0: at
     * once): the drainer goes on sending meanwhile, and the request is back at the head when its
     * answer comes.
     */
    static List<Sent> drain(Pacer pacer, Meter meter, int requests, TokenUsage expected, TokenUsage used,
            long latencyMillis, long refusalMillis, long fromMillis, long untilMillis) {
        long reserved = expected.inputTokens() + expected.outputTokens();
        long actual = used.inputTokens() + used.outputTokens();
        List<Sent> sent = new ArrayList<>();
        PriorityQueue<Open> open = new PriorityQueue<>(Comparator.comparingLong(Open::atMillis));
        PriorityQueue<Open> refused = new PriorityQueue<>(Comparator.comparingLong(Open::atMillis));
        int sequence = 0;
        int left = requests;
        long now = fromMillis;
        long wake = now;
        while ((left > 0 || !open.isEmpty() || !refused.isEmpty()) && now < untilMillis) {
            while (!refused.isEmpty() && refused.peek().atMillis() <= now) {
                pacer.throttled(refused.poll().admission(), now);
                left++;
                wake = Math.min(wake, now);
            }
            while (!open.isEmpty() && open.peek().atMillis() <= now) {
                Open done = open.poll();
                meter.settle(done.handle(), done.admission().reservation().amount(QuotaDimension.TOKENS), actual, now);
                pacer.settle(done.admission(), used, now);
            }
            if (left > 0 && wake <= now) {
                Candidate head = new Candidate("r" + sequence, Lane.BULK, "t", expected, 0, Long.MAX_VALUE);
                Decision decision = pacer.decide(List.of(head), now);
                if (decision instanceof Decision.Admit admit) {
                    Object handle = meter.reserve(admit.admission().reservation().amount(QuotaDimension.TOKENS), now);
                    sent.add(new Sent(now, reserved, handle == null));
                    if (handle == null && refusalMillis > 0) {
                        refused.add(new Open(now + refusalMillis, admit.admission(), null));
                        sequence++;
                        left--;
                    } else if (handle == null) {
                        pacer.throttled(admit.admission(), now);
                        wake = now + THROTTLE_ROUND_TRIP_MILLIS;
                    } else {
                        open.add(new Open(now + latencyMillis, admit.admission(), handle));
                        sequence++;
                        left--;
                    }
                    continue;
                }
                wake = decision instanceof Decision.WaitUntil until ? until.atMillis() : Long.MAX_VALUE;
            }
            long answered = Math.min(open.isEmpty() ? Long.MAX_VALUE : open.peek().atMillis(),
                    refused.isEmpty() ? Long.MAX_VALUE : refused.peek().atMillis());
            long next = Math.min(wake, answered);
            if (left == 0) {
                next = answered == Long.MAX_VALUE ? untilMillis : answered;
            }
            now = Math.max(now + (next == now ? 1 : 0), Math.min(next, untilMillis));
        }
        return sent;
    }

    static Quota tokens(long perMinute) {
        return Quota.tokensPerMinute(perMinute);
    }

    static long accepted(List<Sent> sent, long fromMillis, long untilMillis) {
        return sent.stream().filter(s -> !s.throttled() && s.atMillis() >= fromMillis && s.atMillis() < untilMillis)
                .count();
    }

    static long throttles(List<Sent> sent) {
        return sent.stream().filter(Sent::throttled).count();
    }
}
