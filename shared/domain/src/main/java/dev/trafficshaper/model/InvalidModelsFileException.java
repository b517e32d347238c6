package dev.trafficshaper.model;

import java.util.List;

/** A models file that cannot be used, with every problem found and where it is. */
public final class InvalidModelsFileException extends IllegalArgumentException {

    private final List<String> problems;

    public InvalidModelsFileException(List<String> problems) {
        super("invalid models file:\n  - " + String.join("\n  - ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
