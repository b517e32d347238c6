package dev.trafficshaper.local;

import java.net.URI;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ExecutorService;

/**
 * Webhook deliveries queued per receiver, so that one slow receiver cannot delay anyone else's.
 * One shared pool of delivery threads lets a receiver that takes 12 s per webhook occupy every
 * thread while other tenants' webhooks wait behind it; here each receiver (scheme, host and port
 * of its {@code callbackUrl}) has its own queue and at most {@code perReceiver} deliveries in
 * flight, so a slow receiver holds at most that many threads, and only its own webhooks wait for
 * them. Deliveries without a webhook (the outcome event alone) share one lane of their own.
 *
 * <p>Threads come from {@code executor} as lanes need them and go back when a lane runs dry; at
 * most {@code perReceiver} × (receivers with pending work) run at once, and each attempt is
 * bounded by the transport's timeout.
 */
final class ReceiverLanes {

    private final ExecutorService executor;
    private final int perReceiver;
    private final Map<String, Lane> lanes = new HashMap<>();

    private static final class Lane {
        final Queue<Runnable> waiting = new ArrayDeque<>();
        int running;
    }

    ReceiverLanes(ExecutorService executor, int perReceiver) {
        if (perReceiver < 1) {
            throw new IllegalArgumentException("perReceiver must be at least 1");
        }
        this.executor = executor;
        this.perReceiver = perReceiver;
    }

    /** The lane a delivery to {@code callbackUrl} (nullable) queues in. */
    static String receiverOf(String callbackUrl) {
        if (callbackUrl == null) {
            return "";
        }
        try {
            URI uri = URI.create(callbackUrl);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            String host = uri.getHost() == null ? String.valueOf(uri.getRawAuthority()) : uri.getHost();
            return scheme + "://" + host.toLowerCase(Locale.ROOT) + ":" + uri.getPort();
        } catch (IllegalArgumentException e) {
            return callbackUrl;
        }
    }

    /** Runs {@code delivery} in the receiver's lane: now if it has a free slot, else after its earlier ones. */
    void submit(String receiver, Runnable delivery) {
        synchronized (lanes) {
            Lane lane = lanes.computeIfAbsent(receiver, key -> new Lane());
            if (lane.running >= perReceiver) {
                lane.waiting.add(delivery);
                return;
            }
            lane.running++;
        }
        executor.execute(() -> drain(receiver, delivery));
    }

    /** Runs the first delivery, then the lane's waiting ones, until the lane is empty. */
    private void drain(String receiver, Runnable first) {
        Runnable next = first;
        while (next != null) {
            try {
                next.run();
            } catch (RuntimeException e) {
                System.err.println("webhook delivery to " + receiver + " failed: " + e);
            }
            synchronized (lanes) {
                Lane lane = lanes.get(receiver);
                next = lane.waiting.poll();
                if (next == null) {
                    lane.running--;
                    if (lane.running == 0) {
                        lanes.remove(receiver);
                    }
                }
            }
        }
    }

    /** Deliveries queued behind busy lanes (for tests and diagnostics). */
    int waiting() {
        synchronized (lanes) {
            return lanes.values().stream().mapToInt(lane -> lane.waiting.size()).sum();
        }
    }
}
