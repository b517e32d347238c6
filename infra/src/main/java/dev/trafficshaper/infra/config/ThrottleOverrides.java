package dev.trafficshaper.infra.config;

/**
 * Stage settings that replace what {@link dev.trafficshaper.infra.api.FrontDoorThrottles} computes,
 * each null when not set ({@code -c submitRateLimit=...}, {@code submitBurstLimit},
 * {@code statusRateLimit}, {@code statusBurstLimit}).
 */
public record ThrottleOverrides(Double submitRate, Integer submitBurst, Double statusRate, Integer statusBurst) {

    public static final ThrottleOverrides NONE = new ThrottleOverrides(null, null, null, null);
}
