package dev.trafficshaper.loadtest.report;

import dev.trafficshaper.loadtest.harness.ArmKind;
import dev.trafficshaper.loadtest.harness.OutcomeLine;
import dev.trafficshaper.loadtest.harness.OutcomeStatus;
import dev.trafficshaper.loadtest.harness.RequestIds;
import dev.trafficshaper.loadtest.harness.RunManifest;
import dev.trafficshaper.loadtest.harness.RunSchedule;
import dev.trafficshaper.loadtest.harness.ScheduledRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Joins a run's outcome lines with its schedule, by request id. Every scheduled request of every
 * arm gets exactly one reconciled outcome: the terminal status a source reported (the earliest,
 * when a webhook or an event came twice), or {@code LOST} when no source reported one — a request
 * that was only submitted, or never sent because the run was killed, is lost, never succeeded.
 * The submit response is not an outcome. Lines of other runs or with ids the schedule does not
 * hold are counted as strays and otherwise ignored.
 */
public final class Reconciliation {

    /**
     * @param duplicates terminal lines beyond the first for a request (repeated deliveries)
     * @param conflicts  requests whose terminal lines disagree on the status (should be none)
     */
    public record Counts(int lines, int unreadableLines, int duplicates, int conflicts, int strays) {
    }

    private final RunManifest manifest;
    private final Map<ArmKind, List<ReconciledRequest>> byArm;
    private final Counts counts;

    private Reconciliation(RunManifest manifest, Map<ArmKind, List<ReconciledRequest>> byArm, Counts counts) {
        this.manifest = manifest;
        this.byArm = byArm;
        this.counts = counts;
    }

    public static Reconciliation of(RunManifest manifest, RunOutcomes outcomes) {
        RunSchedule schedule = manifest.schedule();
        List<ArmKind> arms = manifest.armKinds();
        Map<String, List<OutcomeLine>> linesById = new HashMap<>();
        int strays = 0;
        for (OutcomeLine line : outcomes.lines()) {
            var parts = RequestIds.parse(line.id());
            if (parts.isEmpty() || !parts.get().runId().equals(manifest.runId()) || !arms.contains(parts.get().arm())
                    || parts.get().index() >= schedule.size() || !parts.get().arm().wireName().equals(line.arm())) {
                strays++;
                continue;
            }
            linesById.computeIfAbsent(line.id(), id -> new ArrayList<>()).add(line);
        }
        int duplicates = 0;
        int conflicts = 0;
        Map<ArmKind, List<ReconciledRequest>> byArm = new LinkedHashMap<>();
        for (ArmKind arm : arms) {
            List<ReconciledRequest> reconciled = new ArrayList<>(schedule.size());
            for (ScheduledRequest request : schedule.requests()) {
                String id = RequestIds.of(manifest.runId(), arm, request.index());
                List<OutcomeLine> lines = linesById.getOrDefault(id, List.of());
                List<OutcomeLine> terminal = lines.stream().filter(OutcomeLine::isTerminal)
                        .sorted(Comparator.comparing(OutcomeLine::finishedMillis,
                                Comparator.nullsLast(Comparator.naturalOrder())))
                        .toList();
                if (terminal.size() > 1) {
                    duplicates += terminal.size() - 1;
                    if (terminal.stream().map(OutcomeLine::status).distinct().count() > 1) {
                        conflicts++;
                    }
                }
                reconciled.add(reconcile(manifest, arm, id, request, lines, terminal.isEmpty() ? null : terminal.get(0)));
            }
            byArm.put(arm, List.copyOf(reconciled));
        }
        return new Reconciliation(manifest, byArm, new Counts(outcomes.lines().size(), outcomes.unreadableLines(),
                duplicates, conflicts, strays));
    }

    private static ReconciledRequest reconcile(RunManifest manifest, ArmKind arm, String id, ScheduledRequest request,
                                               List<OutcomeLine> lines, OutcomeLine terminal) {
        long start = manifest.startEpochMillis();
        Long sent = null;
        for (OutcomeLine line : lines) {
            if (line.sentMillis() != null && (sent == null || line.sentMillis() < sent)) {
                sent = line.sentMillis();
            }
        }
        if (terminal == null) {
            return new ReconciledRequest(arm.wireName(), id, request.index(), request.arrivalMillis(),
                    offset(sent, start), null, null, null, ReconciledRequest.LOST, null, null, null, 0, 0, 0, 0, 0, 0);
        }
        String outcome = terminal.status() == OutcomeStatus.SUCCEEDED ? ReconciledRequest.SUCCEEDED
                : ReconciledRequest.FAILED;
        return new ReconciledRequest(arm.wireName(), id, request.index(), request.arrivalMillis(), offset(sent, start),
                offset(terminal.firstCallMillis(), start), offset(terminal.lastCallMillis(), start),
                offset(terminal.finishedMillis(), start), outcome, terminal.status(), terminal.reason(),
                terminal.httpStatus(), orZero(terminal.bedrockCalls()), orZero(terminal.throttles()),
                orZero(terminal.inputTokens()), orZero(terminal.outputTokens()), orZero(terminal.cacheReadTokens()),
                orZero(terminal.cacheWriteTokens()));
    }

    private static Long offset(Long epochMillis, long start) {
        return epochMillis == null ? null : epochMillis - start;
    }

    private static int orZero(Integer value) {
        return value == null ? 0 : value;
    }

    private static long orZero(Long value) {
        return value == null ? 0 : value;
    }

    public RunManifest manifest() {
        return manifest;
    }

    public List<ArmKind> arms() {
        return List.copyOf(byArm.keySet());
    }

    public List<ReconciledRequest> requests(ArmKind arm) {
        List<ReconciledRequest> requests = byArm.get(arm);
        if (requests == null) {
            throw new IllegalArgumentException("the run has no arm " + arm.wireName());
        }
        return requests;
    }

    public Counts counts() {
        return counts;
    }

    /** Whether every request of every arm has a terminal outcome. */
    public boolean complete() {
        return byArm.values().stream().flatMap(List::stream).noneMatch(ReconciledRequest::lost);
    }

    public long lost(ArmKind arm) {
        return requests(arm).stream().filter(ReconciledRequest::lost).count();
    }
}
