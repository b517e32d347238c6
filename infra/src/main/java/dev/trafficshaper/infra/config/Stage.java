package dev.trafficshaper.infra.config;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * A named deployment of the shaper ({@code dev}, {@code test}, {@code prod}, …). Production
 * stages keep their data when the stack is deleted and turn on deletion protection; every other
 * stage can be torn down completely.
 *
 * @param name       lower-case letters, digits and dashes; part of every resource name
 * @param production whether data must survive a {@code cdk destroy}
 */
public record Stage(String name, boolean production) {

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,15}");
    private static final Set<String> PRODUCTION_NAMES = Set.of("prod", "production");

    public Stage {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InvalidDeploymentException("stage: '" + name
                    + "' must be 1-16 lower-case letters, digits or dashes, starting with a letter");
        }
    }

    /** A stage named {@code prod} or {@code production} is a production stage unless told otherwise. */
    public static Stage named(String name) {
        return new Stage(name, PRODUCTION_NAMES.contains(name));
    }

    public Stage withProduction(boolean value) {
        return new Stage(name, value);
    }
}
