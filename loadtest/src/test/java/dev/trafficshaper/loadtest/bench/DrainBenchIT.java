package dev.trafficshaper.loadtest.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.trafficshaper.loadtest.cli.LoadTestCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code drain-bench} end to end on wall time: it drains, reports progress, and ends with the
 * documented last line. How fast it goes is the benchmark's to say, not this test's; the test
 * holds only what does not depend on the machine: calls per admission.
 */
class DrainBenchIT {

    private static final Pattern LAST_LINE = Pattern.compile("admissions/s=(\\d+) dynamodb-calls/admission=([0-9.]+)");

    private static final Pattern STOPPED = Pattern.compile("drainer stopped \\(time limit\\): admitted [0-9,]+, settled ([0-9,]+)");

    @Test
    void drainsABacklogAndEndsWithItsFigures() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new LoadTestCli()).setOut(new PrintWriter(out, true));

        int exit = cli.execute("drain-bench", "--seconds", "2", "--latency-ms", "2", "--bedrock-ms", "200");

        assertThat(exit).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines.get(0)).startsWith("drain-bench: 2 s, 2.0 ms per DynamoDB call");
        Matcher figures = LAST_LINE.matcher(lines.get(lines.size() - 1));
        assertThat(figures.matches()).as(lines.get(lines.size() - 1)).isTrue();
        assertThat(Long.parseLong(figures.group(1))).isPositive();
        assertThat(Double.parseDouble(figures.group(2))).isPositive().isLessThanOrEqualTo(1.5);
        // The backlog is topped up, so the drainer runs to its time limit however fast the machine is,
        // and the Bedrock Processor's answers come back to it as settlements.
        Matcher stopped = STOPPED.matcher(out.toString());
        assertThat(stopped.find()).as(out.toString()).isTrue();
        assertThat(Long.parseLong(stopped.group(1).replace(",", ""))).isPositive();
    }

    @Test
    void refusesNonsenseSettings() {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new LoadTestCli()).setErr(new PrintWriter(err, true));

        assertThat(cli.execute("drain-bench", "--seconds", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("must be positive");
    }
}
