package dev.trafficshaper.loadtest.report;

import dev.trafficshaper.loadtest.harness.LoadTestJson;
import dev.trafficshaper.loadtest.harness.ObjectStore;
import dev.trafficshaper.loadtest.harness.OutcomeLine;
import dev.trafficshaper.loadtest.harness.RunLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Every outcome line a run's writers left, read from its directory or S3 prefix. A line that is
 * not a complete outcome — the last line of a file cut short by a killed run — is skipped and
 * counted, never guessed at.
 */
public record RunOutcomes(List<OutcomeLine> lines, int files, int unreadableLines) {

    public RunOutcomes {
        lines = List.copyOf(lines);
    }

    public static RunOutcomes read(ObjectStore store) {
        List<OutcomeLine> lines = new ArrayList<>();
        int unreadable = 0;
        List<String> keys = store.list(RunLayout.OUTCOMES).stream().filter(key -> key.endsWith(".jsonl")).toList();
        for (String key : keys) {
            byte[] bytes = store.get(key).orElse(new byte[0]);
            for (String text : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
                if (text.isBlank()) {
                    continue;
                }
                try {
                    lines.add(LoadTestJson.read(text, OutcomeLine.class));
                } catch (RuntimeException e) {
                    unreadable++;
                }
            }
        }
        return new RunOutcomes(lines, keys.size(), unreadable);
    }
}
