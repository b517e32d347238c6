package dev.trafficshaper.functions.cost;

import java.util.List;

/**
 * docs/cost-model.md's generated sections: the counted calls ({@link CountedRequest#render()}) and
 * the per-million table priced from them ({@link CostModel}), each between its markers; the prose
 * around them is the doc's own.
 */
public final class CostModelDoc {

    public static final String PER_MILLION_BEGIN = "<!-- per-million:begin -->";
    public static final String PER_MILLION_END = "<!-- per-million:end -->";

    private CostModelDoc() {
    }

    /** The per-million table, markers included, for these counts. */
    public static String perMillion(CountedRequest request) {
        List<CostModel.Line> lines = CostModel.price(request);
        StringBuilder out = new StringBuilder(PER_MILLION_BEGIN).append("\n\n");
        out.append("| Service | Quantity per request | Unit price | Per million requests |\n");
        out.append("| --- | --- | --- | ---: |\n");
        for (CostModel.Line line : lines) {
            out.append("| ").append(line.service()).append(" | ").append(line.quantity()).append(" | ")
                    .append(line.unitPrice()).append(" | ").append(CostModel.dollars(line.perMillion())).append(" |\n");
        }
        out.append("| **Total** | | | **").append(CostModel.dollars(CostModel.total(lines))).append("** |\n\n");
        out.append(PER_MILLION_END);
        return out.toString();
    }

    /** The per-million section of a document as it stands. */
    public static String perMillionSection(String document) {
        int begin = document.indexOf(PER_MILLION_BEGIN);
        int end = document.indexOf(PER_MILLION_END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("no " + PER_MILLION_BEGIN + " ... " + PER_MILLION_END + " section");
        }
        return document.substring(begin, end + PER_MILLION_END.length());
    }

    /** The document with both generated sections rewritten from {@code counted}. */
    public static String regenerate(String document, CountedRequest counted) {
        String withCounts = counted.replaceIn(document);
        return withCounts.replace(perMillionSection(withCounts), perMillion(counted));
    }
}
