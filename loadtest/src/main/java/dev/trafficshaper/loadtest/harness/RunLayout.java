package dev.trafficshaper.loadtest.harness;

/**
 * The files of one run, by key under the run's root (a directory, or {@code s3://bucket/runs/<id>/}).
 * <pre>
 *   run.json                     the manifest: scenario, seed, arms, start, workers
 *   items.json                   (AWS) the Distributed Map's items: one per worker and time window
 *   outcomes/&lt;arm&gt;/*.jsonl       outcome lines, one file (or object) per writer
 *   provider.json                (local) what each arm's Bedrock simulator counted
 *   report/summary.json          (AWS) the reconcile step's counts per arm
 *   report/reconciled.jsonl      (AWS) one reconciled line per scheduled request, lost ones included
 * </pre>
 */
public final class RunLayout {

    public static final String MANIFEST = "run.json";
    public static final String ITEMS = "items.json";
    public static final String OUTCOMES = "outcomes/";
    public static final String PROVIDER = "provider.json";
    public static final String SUMMARY = "report/summary.json";
    public static final String RECONCILED = "report/reconciled.jsonl";
    /** The S3 prefix of every run in the load-test bucket. */
    public static final String RUNS = "runs/";

    private RunLayout() {
    }

    public static String outcomes(ArmKind arm, String writer) {
        return OUTCOMES + arm.wireName() + "/" + writer + ".jsonl";
    }

    /** The S3 prefix of one run. */
    public static String runPrefix(String runId) {
        return RUNS + RequestIds.requireRunId(runId) + "/";
    }
}
