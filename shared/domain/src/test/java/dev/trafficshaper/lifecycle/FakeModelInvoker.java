package dev.trafficshaper.lifecycle;

import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.ModelInvoker;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.quota.TokenUsage;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Bedrock as a script: answers each request's calls from its own queue of outcomes, and with a
 * success when the script has run out. Requests are told apart by the prompt text, which
 * {@link ShaperFixture} sets to the request id.
 */
public final class FakeModelInvoker implements ModelInvoker {

    public static final TokenUsage USAGE = TokenUsage.of(12, 34);

    /** One call as the invoker saw it. */
    public record Call(String requestId, String modelId, String body, Duration timeout) {
    }

    /** Runs during a call, before it answers: for races with the call in flight. */
    public interface DuringCall {
        void run(String requestId);
    }

    private final Map<String, Deque<BedrockOutcome>> scripts = new HashMap<>();
    private final List<Call> calls = new ArrayList<>();
    private DuringCall duringCall = requestId -> { };

    public synchronized FakeModelInvoker answer(String requestId, BedrockOutcome... outcomes) {
        Deque<BedrockOutcome> script = scripts.computeIfAbsent(requestId, id -> new ArrayDeque<>());
        script.addAll(List.of(outcomes));
        return this;
    }

    public FakeModelInvoker duringCall(DuringCall action) {
        this.duringCall = action;
        return this;
    }

    public synchronized List<Call> calls() {
        return List.copyOf(calls);
    }

    public synchronized long callsFor(String requestId) {
        return calls.stream().filter(call -> call.requestId().equals(requestId)).count();
    }

    public static BedrockOutcome.Succeeded success(String text) {
        return new BedrockOutcome.Succeeded(USAGE, "end_turn", """
                {"output":{"message":{"role":"assistant","content":[{"text":"%s"}]}},"stopReason":"end_turn",\
                "usage":{"inputTokens":%d,"outputTokens":%d,"totalTokens":%d}}"""
                .formatted(text, USAGE.inputTokens(), USAGE.outputTokens(),
                        USAGE.inputTokens() + USAGE.outputTokens()));
    }

    @Override
    public BedrockOutcome invoke(ModelConfig model, String converseRequestJson, Duration timeout) {
        String requestId = ShaperFixture.requestIdOf(converseRequestJson);
        synchronized (this) {
            calls.add(new Call(requestId, model.modelId(), converseRequestJson, timeout));
        }
        duringCall.run(requestId);
        synchronized (this) {
            Deque<BedrockOutcome> script = scripts.get(requestId);
            return script == null || script.isEmpty() ? success("answer to " + requestId) : script.poll();
        }
    }
}
