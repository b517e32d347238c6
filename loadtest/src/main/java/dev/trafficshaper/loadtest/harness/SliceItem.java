package dev.trafficshaper.loadtest.harness;

/**
 * One item of the Distributed Map on AWS: worker {@code worker} of {@code workers} plays its
 * requests that arrive in {@code [fromMillis, untilMillis)} of the schedule. Its child execution
 * waits until {@code startAt} (ISO-8601, a little before {@code fromMillis}, so the function is warm
 * when its first request is due), then invokes one worker function, which stops at
 * {@code stopAtEpochMillis}: after its last arrival plus the longest call.
 */
public record SliceItem(int worker, int workers, int window, long fromMillis, long untilMillis, String startAt,
                        long stopAtEpochMillis) {

    public SliceItem {
        if (workers < 1 || worker < 0 || worker >= workers || window < 0 || untilMillis <= fromMillis
                || startAt == null) {
            throw new IllegalArgumentException("invalid slice item: worker " + worker + " of " + workers + ", window "
                    + window);
        }
    }

    /** The name a worker's outcome objects carry: {@code w<worker>-t<window>}. */
    public String writerName() {
        return "w" + worker + "-t" + window;
    }
}
