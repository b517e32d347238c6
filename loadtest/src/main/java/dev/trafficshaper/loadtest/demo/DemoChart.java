package dev.trafficshaper.loadtest.demo;

import dev.trafficshaper.loadtest.report.Charts;
import java.nio.file.Path;
import java.util.Locale;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The demo's chart, in the simulator charts' style: tokens delivered per minute (10 s buckets × 6)
 * per arm, against the quota as a dashed line; seconds and minutes are the demo clock's.
 */
public final class DemoChart {

    public static final String FILE_NAME = "delivered-per-minute.png";

    private DemoChart() {
    }

    public static void deliveredPerMinute(Path file, DemoResult result) {
        DemoSettings s = result.settings();
        XYSeriesCollection data = new XYSeriesCollection();
        double seconds = DemoRun.BUCKET_MILLIS / 1_000.0;
        long perMinute = 60_000 / DemoRun.BUCKET_MILLIS;
        for (ArmResult r : result.arms()) {
            XYSeries series = new XYSeries(r.arm().label());
            long[] buckets = r.deliveredPerTenSeconds();
            for (int b = 0; b < buckets.length; b++) {
                series.add((b + 0.5) * DemoRun.BUCKET_MILLIS / 1_000.0, buckets[b] * perMinute);
            }
            seconds = Math.max(seconds, buckets.length * DemoRun.BUCKET_MILLIS / 1_000.0);
            data.addSeries(series);
        }
        XYSeries quota = new XYSeries("quota");
        quota.add(0, s.quotaTpm());
        quota.add(seconds, s.quotaTpm());
        data.addSeries(quota);
        String title = String.format(Locale.ROOT, "Demo: %,d requests × ~%,d tokens at %,d TPM (%s): delivered tokens"
                + " per minute vs quota", s.requests(), s.tokensPerRequest(), s.quotaTpm(), s.quotaModel().wireName());
        String clock = s.timeScale() == 1.0 ? "" : String.format(Locale.ROOT, " (demo clock, %s× the wall)",
                s.timeScale() == Math.rint(s.timeScale()) ? Long.toString((long) s.timeScale())
                        : Double.toString(s.timeScale()));
        JFreeChart chart = ChartFactory.createXYLineChart(title, "seconds since the burst began" + clock,
                "tokens of successful calls per minute (10 s buckets)", data, PlotOrientation.VERTICAL, true, false,
                false);
        Charts.style(chart, data.getSeriesCount() - 1);
        Charts.save(chart, file);
    }
}
