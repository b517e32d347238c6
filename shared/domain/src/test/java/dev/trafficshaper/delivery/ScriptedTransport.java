package dev.trafficshaper.delivery;

import java.net.URI;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/** A webhook receiver that answers from a script (200 when it runs out) and records every post. */
final class ScriptedTransport implements WebhookTransport {

    record Post(URI target, Map<String, String> headers, String body) {
    }

    final List<Post> posts = new ArrayList<>();
    private final Deque<Object> script = new ArrayDeque<>();

    void answer(int... codes) {
        for (int code : codes) {
            script.add(code);
        }
    }

    void fail(Exception e) {
        script.add(e);
    }

    @Override
    public synchronized int post(URI target, Map<String, String> headers, String body) throws Exception {
        posts.add(new Post(target, Map.copyOf(headers), body));
        Object next = script.isEmpty() ? 200 : script.poll();
        if (next instanceof Exception e) {
            throw e;
        }
        return (Integer) next;
    }
}
