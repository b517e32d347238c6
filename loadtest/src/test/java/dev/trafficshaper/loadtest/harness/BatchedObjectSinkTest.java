package dev.trafficshaper.loadtest.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BatchedObjectSinkTest {

    @Test
    void linesBecomeNumberedObjectsThatAreNeverRewritten(@TempDir Path dir) {
        DirectoryObjectStore store = new DirectoryObjectStore(dir);
        BatchedObjectSink sink = BatchedObjectSink.create(store, "outcomes/direct/w0-t0", 2, 0);

        for (int i = 0; i < 5; i++) {
            sink.write(line(i));
        }
        assertThat(store.list("outcomes/")).containsExactly("outcomes/direct/w0-t0-00001.jsonl",
                "outcomes/direct/w0-t0-00002.jsonl");
        sink.close();

        List<String> keys = store.list("outcomes/");
        assertThat(keys).containsExactly("outcomes/direct/w0-t0-00001.jsonl", "outcomes/direct/w0-t0-00002.jsonl",
                "outcomes/direct/w0-t0-00003.jsonl");
        String first = new String(store.get(keys.get(0)).orElseThrow(), StandardCharsets.UTF_8);
        assertThat(first.split("\n")).hasSize(2);
        assertThat(LoadTestJson.read(first.split("\n")[1], OutcomeLine.class)).isEqualTo(line(1));
    }

    @Test
    void aFlushWithNothingWaitingWritesNothing(@TempDir Path dir) {
        DirectoryObjectStore store = new DirectoryObjectStore(dir);
        BatchedObjectSink sink = BatchedObjectSink.create(store, "outcomes/shaper/w1-t0", 100, 0);
        sink.flush();
        sink.close();
        assertThat(store.list("")).isEmpty();
    }

    @Test
    void theAppendingFileSinkHandsEveryLineOverAtOnce(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("outcomes/direct/w0.jsonl");
        AppendingFileSink sink = new AppendingFileSink(file);
        sink.write(line(0));
        // not closed: what a killed run leaves behind is already in the file
        assertThat(java.nio.file.Files.readAllLines(file)).hasSize(1);
        sink.close();
    }

    private static OutcomeLine line(int index) {
        return OutcomeLine.builder(ArmKind.DIRECT, RequestIds.of(TestRuns.RUN_ID, ArmKind.DIRECT, index)).index(index)
                .status(OutcomeStatus.SUCCEEDED).finishedMillis(index).build();
    }
}
