package dev.trafficshaper.infra;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** The dependencies between a template's resources (Ref, Fn::GetAtt, DependsOn), to find cycles. */
final class TemplateGraph {

    private final Map<String, Set<String>> edges = new HashMap<>();

    @SuppressWarnings("unchecked")
    TemplateGraph(Map<String, Object> resources) {
        for (Map.Entry<String, Object> entry : resources.entrySet()) {
            Set<String> targets = new TreeSet<>();
            collect(entry.getValue(), resources.keySet(), targets);
            Object dependsOn = ((Map<String, Object>) entry.getValue()).get("DependsOn");
            if (dependsOn instanceof String name) {
                targets.add(name);
            } else if (dependsOn instanceof List<?> names) {
                names.forEach(name -> targets.add(name.toString()));
            }
            edges.put(entry.getKey(), targets);
        }
    }

    private static void collect(Object node, Set<String> ids, Set<String> into) {
        if (node instanceof Map<?, ?> map) {
            Object ref = map.get("Ref");
            if (ref instanceof String name && ids.contains(name)) {
                into.add(name);
            }
            Object getAtt = map.get("Fn::GetAtt");
            if (getAtt instanceof List<?> parts && !parts.isEmpty() && ids.contains(parts.get(0).toString())) {
                into.add(parts.get(0).toString());
            }
            map.values().forEach(value -> collect(value, ids, into));
        } else if (node instanceof List<?> list) {
            list.forEach(value -> collect(value, ids, into));
        }
    }

    Set<String> dependenciesOf(String resource) {
        return edges.getOrDefault(resource, Set.of());
    }

    /** A cycle as a list of logical ids, if there is one. */
    Optional<List<String>> findCycle() {
        Set<String> done = new HashSet<>();
        for (String start : edges.keySet()) {
            Deque<String> path = new ArrayDeque<>();
            Optional<List<String>> cycle = visit(start, path, new HashSet<>(), done);
            if (cycle.isPresent()) {
                return cycle;
            }
        }
        return Optional.empty();
    }

    private Optional<List<String>> visit(String node, Deque<String> path, Set<String> onPath, Set<String> done) {
        if (onPath.contains(node)) {
            List<String> cycle = new ArrayList<>(path);
            cycle.add(node);
            return Optional.of(cycle);
        }
        if (!done.add(node)) {
            return Optional.empty();
        }
        path.addLast(node);
        onPath.add(node);
        for (String next : dependenciesOf(node)) {
            Optional<List<String>> cycle = visit(next, path, onPath, done);
            if (cycle.isPresent()) {
                return cycle;
            }
        }
        onPath.remove(node);
        path.removeLast();
        return Optional.empty();
    }
}
