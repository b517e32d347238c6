package dev.trafficshaper.loadtest.strategy;

import dev.trafficshaper.loadtest.shaper.ProductionShaper;
import dev.trafficshaper.loadtest.sim.SimRun;
import dev.trafficshaper.loadtest.sim.Strategy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** The strategies the simulator compares, by name. */
public final class Strategies {

    /** The clairvoyant strategy every table compares against ({@link Oracle}). */
    public static final String ORACLE = "oracle";
    /** The production drainer on virtual time ({@link ProductionShaper}). */
    public static final String SHAPER = "shaper";
    /** The SDK's adaptive retry mode ({@link SdkAdaptive}). */
    public static final String SDK_ADAPTIVE = "sdk-adaptive";

    private static final Map<String, Function<SimRun, Strategy>> ALL = new LinkedHashMap<>();

    static {
        ALL.put("direct-no-retry", DirectNoRetry::new);
        ALL.put("direct-retry-jitter", DirectRetryJitter::new);
        ALL.put(SDK_ADAPTIVE, SdkAdaptive::new);
        ALL.put("client-bucket", ClientBucket::new);
        ALL.put("window-pacer", WindowPacer::new);
        ALL.put(SHAPER, ProductionShaper::new);
        ALL.put(ORACLE, Oracle::new);
    }

    public static List<String> names() {
        return List.copyOf(ALL.keySet());
    }

    public static Strategy create(String name, SimRun run) {
        Function<SimRun, Strategy> factory = ALL.get(name);
        if (factory == null) {
            throw new IllegalArgumentException("unknown strategy '" + name + "'; known: " + String.join(", ", names()));
        }
        return factory.apply(run);
    }

    private Strategies() {
    }
}
