package dev.trafficshaper.loadtest.demo;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.geom.Ellipse2D;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The demo's chart, in the simulator charts' style: tokens delivered per minute (10 s buckets × 6)
 * per arm, against the quota as a dashed line; seconds and minutes are the demo clock's.
 */
public final class DemoChart {

    public static final String FILE_NAME = "delivered-per-minute.png";
    private static final int WIDTH = 1_100;
    private static final int HEIGHT = 620;

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
        style(chart, data.getSeriesCount() - 1);
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static void style(JFreeChart chart, int quotaSeries) {
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        Ellipse2D.Double dot = new Ellipse2D.Double(-2, -2, 4, 4);
        for (int i = 0; i < plot.getDataset().getSeriesCount(); i++) {
            renderer.setSeriesStroke(i, new BasicStroke(2.0f));
            renderer.setSeriesShape(i, dot);
        }
        renderer.setSeriesPaint(quotaSeries, Color.BLACK);
        renderer.setSeriesShapesVisible(quotaSeries, false);
        renderer.setSeriesStroke(quotaSeries, new BasicStroke(2.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER,
                10f, new float[] {8f, 6f}, 0f));
        plot.setRenderer(renderer);
    }
}
