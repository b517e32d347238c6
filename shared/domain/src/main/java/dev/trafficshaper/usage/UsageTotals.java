package dev.trafficshaper.usage;

import dev.trafficshaper.quota.Charge;
import dev.trafficshaper.quota.TokenUsage;

/** The sum of a set of settlements. */
public record UsageTotals(long settlements, TokenUsage usage, Charge charge) {

    public static final UsageTotals NONE = new UsageTotals(0, new TokenUsage(0, 0, 0, 0), Charge.NONE);

    public UsageTotals plus(Settlement settlement) {
        TokenUsage u = settlement.usage();
        Charge c = settlement.charge();
        return new UsageTotals(settlements + 1,
                new TokenUsage(Math.addExact(usage.inputTokens(), u.inputTokens()),
                        Math.addExact(usage.outputTokens(), u.outputTokens()),
                        Math.addExact(usage.cacheReadTokens(), u.cacheReadTokens()),
                        Math.addExact(usage.cacheWriteTokens(), u.cacheWriteTokens())),
                new Charge(Math.addExact(charge.requests(), c.requests()), Math.addExact(charge.tokens(), c.tokens()),
                        Math.addExact(charge.inputTokens(), c.inputTokens()),
                        Math.addExact(charge.outputTokens(), c.outputTokens())));
    }
}
