package dev.trafficshaper.functions.cost;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one request cost in calls, as LifecycleCostIT counted it: every AWS call its functions made
 * (by function, service and operation, with the DynamoDB request units), the Lambda invocations of
 * each function and the Step Functions state transitions. Rendered as, and read back from, the
 * tables of docs/cost-model.md between {@value #BEGIN} and {@value #END}, so the doc can be held to
 * a run.
 *
 * @param calls       per request, in the order rendered
 * @param invocations Lambda invocations per request, by function
 * @param transitions state transitions per request (states entered)
 * @param logBytes    bytes of the functions' own log lines per request
 */
public record CountedRequest(List<Row> calls, Map<String, Double> invocations, double transitions,
                             double logBytes) {

    public static final String BEGIN = "<!-- counted:begin -->";
    public static final String END = "<!-- counted:end -->";

    /** One kind of AWS call made for every request, and how often. */
    public record Row(String function, String service, String operation, double calls, double writeUnits,
                      double readUnits) {
    }

    public CountedRequest {
        calls = List.copyOf(calls);
        invocations = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(invocations));
    }

    public double totalCalls() {
        return calls.stream().mapToDouble(Row::calls).sum();
    }

    public double totalWriteUnits() {
        return calls.stream().mapToDouble(Row::writeUnits).sum();
    }

    public double totalReadUnits() {
        return calls.stream().mapToDouble(Row::readUnits).sum();
    }

    /** Calls to one service and operation, whoever made them. */
    public double calls(String service, String operation) {
        return calls.stream().filter(r -> r.service().equals(service) && r.operation().equals(operation))
                .mapToDouble(Row::calls).sum();
    }

    public double totalInvocations() {
        return invocations.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** The two tables, markers included. */
    public String render() {
        StringBuilder out = new StringBuilder(BEGIN).append("\n\n");
        out.append("| Function | Service | Operation | Calls | Write units | Read units |\n");
        out.append("| --- | --- | --- | ---: | ---: | ---: |\n");
        for (Row row : calls) {
            out.append("| ").append(row.function()).append(" | ").append(row.service()).append(" | ")
                    .append(row.operation()).append(" | ").append(number(row.calls())).append(" | ")
                    .append(units(row.writeUnits())).append(" | ").append(units(row.readUnits())).append(" |\n");
        }
        out.append("| **Total** | | | **").append(number(totalCalls())).append("** | **")
                .append(number(totalWriteUnits())).append("** | **").append(number(totalReadUnits())).append("** |\n\n");
        out.append("| Lambda function | Invocations |\n| --- | ---: |\n");
        invocations.forEach((function, count) -> out.append("| ").append(function).append(" | ")
                .append(number(count)).append(" |\n"));
        out.append("| **Total** | **").append(number(totalInvocations())).append("** |\n\n");
        out.append("Step Functions state transitions per request: **").append(number(transitions)).append("**\n\n");
        out.append("Function log bytes per request: **").append(number(logBytes)).append("**\n\n");
        out.append(END);
        return out.toString();
    }

    private static final Pattern CALL_ROW = Pattern.compile(
            "^\\| ([^|*]+?) \\| ([^|]+?) \\| ([^|]+?) \\| ([0-9.]+) \\| ([0-9.]*) \\| ([0-9.]*) \\|$");
    private static final Pattern INVOCATION_ROW = Pattern.compile("^\\| ([^|*]+?) \\| ([0-9.]+) \\|$");
    private static final Pattern TRANSITIONS = Pattern.compile("state transitions per request: \\*\\*([0-9.]+)\\*\\*");
    private static final Pattern LOG_BYTES = Pattern.compile("log bytes per request: \\*\\*([0-9.]+)\\*\\*");

    /** The tables between the markers of a document, e.g. docs/cost-model.md. */
    public static CountedRequest parse(String document) {
        int begin = document.indexOf(BEGIN);
        int end = document.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("no " + BEGIN + " ... " + END + " section");
        }
        String section = document.substring(begin, end);
        List<Row> rows = new ArrayList<>();
        Map<String, Double> invocations = new LinkedHashMap<>();
        for (String line : section.split("\n")) {
            Matcher call = CALL_ROW.matcher(line.strip());
            Matcher invocation = INVOCATION_ROW.matcher(line.strip());
            if (call.matches()) {
                rows.add(new Row(call.group(1), call.group(2), call.group(3), Double.parseDouble(call.group(4)),
                        parseUnits(call.group(5)), parseUnits(call.group(6))));
            } else if (invocation.matches()) {
                invocations.put(invocation.group(1), Double.parseDouble(invocation.group(2)));
            }
        }
        Matcher transitions = TRANSITIONS.matcher(section);
        if (!transitions.find()) {
            throw new IllegalArgumentException("no transitions line in the counted section");
        }
        Matcher logBytes = LOG_BYTES.matcher(section);
        if (!logBytes.find()) {
            throw new IllegalArgumentException("no log bytes line in the counted section");
        }
        return new CountedRequest(rows, invocations, Double.parseDouble(transitions.group(1)),
                Double.parseDouble(logBytes.group(1)));
    }

    /** The document with its counted section replaced by this one's. */
    public String replaceIn(String document) {
        int begin = document.indexOf(BEGIN);
        int end = document.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("no " + BEGIN + " ... " + END + " section");
        }
        return document.substring(0, begin) + render() + document.substring(end + END.length());
    }

    private static double parseUnits(String text) {
        return text.isEmpty() ? 0 : Double.parseDouble(text);
    }

    private static String units(double value) {
        return value == 0 ? "" : number(value);
    }

    static String number(double value) {
        double rounded = Math.round(value * 100) / 100.0;
        if (rounded == Math.rint(rounded)) {
            return Long.toString((long) rounded);
        }
        return String.format(Locale.ROOT, "%.2f", rounded).replaceAll("0$", "");
    }
}
