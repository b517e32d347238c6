package dev.trafficshaper.loadtest.harness;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends each line to a local file and hands it to the operating system at once, so a run that
 * is killed keeps every outcome it had reached; at worst the last line is cut short, which the
 * report skips and counts.
 */
public final class AppendingFileSink implements OutcomeSink {

    private final Path file;
    private final BufferedWriter out;

    public AppendingFileSink(Path file) {
        this.file = file;
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + file, e);
        }
    }

    @Override
    public synchronized void write(OutcomeLine line) {
        try {
            out.write(LoadTestJson.line(line));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to " + file, e);
        }
    }

    @Override
    public synchronized void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to " + file, e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close " + file, e);
        }
    }
}
