package dev.trafficshaper.infra;

import dev.trafficshaper.infra.config.InvalidDeploymentException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import software.amazon.awscdk.services.lambda.Code;

/**
 * Where the shaper's Lambda code comes from: the shaded functions jar, either at a path (a checkout's
 * {@code functions/target/traffic-shaper-functions.jar}) or the published artifact
 * {@code dev.trafficshaper:traffic-shaper-functions} that a CDK app declares as a dependency, found
 * on the app's class path. The CDK only hashes and uploads the jar; nothing in it runs at synth.
 */
public final class FunctionCode {

    /** A class every functions jar holds: the composition root of the handlers. */
    static final String MARKER_CLASS = "dev.trafficshaper.functions.Shaper";

    private final Path jar;

    private FunctionCode(Path jar) {
        this.jar = jar;
    }

    /** The jar at this path. */
    public static FunctionCode fromPath(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new InvalidDeploymentException(jar + ": the Lambda jar is missing; build it first with"
                    + " ./mvnw -q -DskipTests package (or point to the published traffic-shaper-functions jar)");
        }
        return new FunctionCode(jar.toAbsolutePath());
    }

    /**
     * The published {@code traffic-shaper-functions} jar on the class path. Declare it in the CDK
     * app's build with its dependencies excluded (they are inside the shaded jar):
     * {@code <exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>}.
     */
    public static FunctionCode fromClassPath() {
        Class<?> marker;
        try {
            marker = Class.forName(MARKER_CLASS, false, FunctionCode.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new InvalidDeploymentException("the traffic-shaper-functions jar is not on the class path: add the"
                    + " dependency dev.trafficshaper:traffic-shaper-functions (see docs/embedding.md) or use"
                    + " FunctionCode.fromPath", e);
        }
        Path location;
        try {
            location = Path.of(marker.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new InvalidDeploymentException("cannot tell which file " + MARKER_CLASS + " was loaded from", e);
        }
        if (!Files.isRegularFile(location) || !location.toString().endsWith(".jar")) {
            throw new InvalidDeploymentException(MARKER_CLASS + " was loaded from " + location + ", not from a jar:"
                    + " use FunctionCode.fromPath with the shaded functions jar");
        }
        return fromPath(location);
    }

    public Path jar() {
        return jar;
    }

    Code code() {
        return Code.fromAsset(jar.toString());
    }
}
