package dev.trafficshaper.loadtest.report;

import dev.trafficshaper.loadtest.sim.StrategyResult;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** PNG charts of a run: delivered tokens per minute against the quota, and queue depth. */
public final class Charts {

    private static final int WIDTH = 1_100;
    private static final int HEIGHT = 620;

    private Charts() {
    }

    /**
     * Quota-charged tokens of successful calls as a per-minute rate (10 s buckets × 6), per strategy,
     * with the quota as a dashed line.
     */
    public static void deliveredPerMinute(Path file, String title, long quotaPerMinute, List<StrategyResult> results) {
        XYSeriesCollection data = new XYSeriesCollection();
        double minutes = 1;
        for (StrategyResult r : results) {
            XYSeries series = new XYSeries(r.strategy());
            long[] values = r.deliveredPerTenSeconds();
            for (int b = 0; b < values.length; b++) {
                series.add((b + 0.5) / 6.0, values[b] * 6);
            }
            minutes = Math.max(minutes, values.length / 6.0);
            data.addSeries(series);
        }
        XYSeries quota = new XYSeries("quota");
        quota.add(0, quotaPerMinute);
        quota.add(minutes, quotaPerMinute);
        data.addSeries(quota);
        JFreeChart chart = ChartFactory.createXYLineChart(title, "minute", "quota-charged tokens per minute", data,
                PlotOrientation.VERTICAL, true, false, false);
        style(chart, data.getSeriesCount() - 1);
        save(chart, file);
    }

    /** Requests waiting (queued or backing off) per second, per strategy. */
    public static void queueDepth(Path file, String title, List<StrategyResult> results) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (StrategyResult r : results) {
            XYSeries series = new XYSeries(r.strategy());
            long[] values = r.queueDepthPerSecond();
            for (int s = 0; s < values.length; s++) {
                series.add(s, values[s]);
            }
            data.addSeries(series);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(title, "second", "requests waiting", data,
                PlotOrientation.VERTICAL, true, false, false);
        style(chart, -1);
        save(chart, file);
    }

    /**
     * The house style of every chart: white plot, grey grid, 2 px lines with dots; the series at
     * {@code quotaSeries} (none when negative) is the quota, drawn as a black dashed line.
     */
    public static void style(JFreeChart chart, int quotaSeries) {
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        java.awt.Shape dot = new java.awt.geom.Ellipse2D.Double(-2, -2, 4, 4);
        for (int i = 0; i < plot.getDataset().getSeriesCount(); i++) {
            renderer.setSeriesStroke(i, new BasicStroke(2.0f));
            renderer.setSeriesShape(i, dot);
        }
        if (quotaSeries >= 0) {
            renderer.setSeriesPaint(quotaSeries, Color.BLACK);
            renderer.setSeriesShapesVisible(quotaSeries, false);
            renderer.setSeriesStroke(quotaSeries, new BasicStroke(2.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER,
                    10f, new float[] {8f, 6f}, 0f));
        }
        plot.setRenderer(renderer);
    }

    /** Writes the chart as a PNG of the house size, creating the folder if needed. */
    public static void save(JFreeChart chart, Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
