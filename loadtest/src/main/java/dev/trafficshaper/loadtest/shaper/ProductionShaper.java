package dev.trafficshaper.loadtest.shaper;

import dev.trafficshaper.bedrock.BedrockOutcome;
import dev.trafficshaper.bedrock.TransientKind;
import dev.trafficshaper.lease.InMemoryDrainerLeases;
import dev.trafficshaper.lifecycle.AdmissionService;
import dev.trafficshaper.lifecycle.DispatchMode;
import dev.trafficshaper.lifecycle.DrainService;
import dev.trafficshaper.lifecycle.DrainSettings;
import dev.trafficshaper.lifecycle.InlineCalls;
import dev.trafficshaper.lifecycle.Finalizer;
import dev.trafficshaper.lifecycle.InMemoryModelStatusBoard;
import dev.trafficshaper.lifecycle.InvocationService;
import dev.trafficshaper.lifecycle.SafetyNet;
import dev.trafficshaper.lifecycle.ShaperMetrics;
import dev.trafficshaper.lifecycle.StoredPacerHandoff;
import dev.trafficshaper.lifecycle.Sweeper;
import dev.trafficshaper.lifecycle.Ticket;
import dev.trafficshaper.loadtest.scenario.Deployment;
import dev.trafficshaper.loadtest.scenario.Scenario;
import dev.trafficshaper.loadtest.shaper.VirtualDrainClock.DrainerCrash;
import dev.trafficshaper.loadtest.sim.CallOutcome;
import dev.trafficshaper.loadtest.sim.DrainerActivity;
import dev.trafficshaper.loadtest.sim.SimRequest;
import dev.trafficshaper.loadtest.sim.SimRun;
import dev.trafficshaper.loadtest.sim.Strategy;
import dev.trafficshaper.model.Backend;
import dev.trafficshaper.model.ModelCatalog;
import dev.trafficshaper.model.ModelConfig;
import dev.trafficshaper.payload.InMemoryPayloadStore;
import dev.trafficshaper.payload.Payload;
import dev.trafficshaper.payload.PayloadKind;
import dev.trafficshaper.payload.PayloadRef;
import dev.trafficshaper.queue.InMemoryRequestQueue;
import dev.trafficshaper.queue.RequestQueue;
import dev.trafficshaper.queue.ShardPicker;
import dev.trafficshaper.quota.TokenUsage;
import dev.trafficshaper.request.InMemoryRequestStore;
import dev.trafficshaper.request.NewRequest;
import dev.trafficshaper.request.RequestRecord;
import dev.trafficshaper.request.RequestState;
import dev.trafficshaper.usage.InMemoryUsageLedger;
import dev.trafficshaper.usage.UsageSharding;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The {@code shaper} strategy: the production shaper in virtual time. Nothing here paces; the
 * Budget Manager's {@link AdmissionService} enqueues each arrival and wakes a drainer, the Queue
 * Processor's {@link DrainService} drains with the production pacer, fenced admissions, status
 * polling and handoffs, and the Bedrock Processor's {@link InvocationService} claims, calls,
 * settles, requeues and signals — all over the in-memory adapters the local runtime uses.
 *
 * <p>What the Lambda deployment adds around them is modelled from the scenario's
 * {@link Deployment}: the drainer's dispatch reaches a processor after an asynchronous invocation
 * ({@link SimulatedLambda}: delay, cold starts, the concurrency limit); a wake starts a Queue
 * Processor the same way; the Bedrock call is the simulated provider's; its outcome is written
 * {@code settlementDelayMillis} after the answer; each drainer stops at its time limit and wakes a
 * successor; a crashed drainer leaves its lease to expire, and the 1-minute safety net wakes the
 * next one. A request still open when its workflow's Admit task times out (a minute after its
 * deadline) is ended by the production {@link Finalizer}, as the state machine's Finalize step
 * would.
 *
 * <p>The run's backlog (for utilization) is the queue: a request is waiting from its arrival until
 * the drainer admits it, and again from a requeue, as the look-alike it replaces counted. Its
 * reported wait runs from its arrival to the start of the call that ended it.
 *
 * <p>With the deployment's {@code INLINE} dispatch mode the drainer makes the calls that fit in its
 * invocation itself ({@link SimulatedInlineCalls}): each starts when the drainer hands it over,
 * the drainer's instance stays busy until its last call has ended, and a crash takes its calls
 * with it. Calls that do not fit, and the sweeper's re-dispatches, still go to the simulated
 * Bedrock Processor.
 */
public final class ProductionShaper implements Strategy {

    static final String MODEL = "simulated-model";
    /** The safety net's schedule: EventBridge's shortest rate. */
    static final long SAFETY_NET_MILLIS = 60_000;
    /** The Admit task's timeout beyond the request's deadline (the state machine's is above the longest deadline). */
    static final long ADMIT_TIMEOUT_AFTER_DEADLINE_MILLIS = 60_000;
    /** Give up on a run whose requests never all end (a bug, not a scenario): a day after the arrivals. */
    private static final long RUN_LIMIT_AFTER_ARRIVALS_MILLIS = 24 * 3_600_000L;

    private final SimRun run;
    private final Scenario scenario;
    private final Deployment deployment;
    private final VirtualDrainClock clock;
    private final InMemoryDrainerLeases leases = new InMemoryDrainerLeases();
    private final RequestQueue queue;
    private final InMemoryPayloadStore payloads = InMemoryPayloadStore.create();
    private final AdmissionService admissions;
    private final DrainService drains;
    private final InvocationService invocations;
    private final Finalizer finalizer;
    private final SafetyNet safetyNet;
    private final SimulatedLambda queueProcessors;
    private final SimulatedLambda bedrockProcessors;
    /** The drainer's own calls; null when the deployment dispatches asynchronously. */
    private final SimulatedInlineCalls inlineCalls;
    private final Map<String, Tracked> byId = new HashMap<>();
    /**
     * Every request's body, built once: nothing reads its text in virtual time, and parsing and
     * hashing one per arrival took a tenth of a long run.
     */
    private final Payload body;
    private final long arrivalsEndMillis;
    private long unfinished;
    private long drainerInvocations;
    private long leaseGranted;
    private long handoffs;
    private long crashes;
    private long staleRequeues;
    private long dispatched;

    /** One simulated request as the strategy follows it. */
    private static final class Tracked {
        final SimRequest request;
        boolean waiting;
        boolean finished;

        Tracked(SimRequest request) {
            this.request = request;
        }
    }

    public ProductionShaper(SimRun run) {
        this.run = run;
        this.scenario = run.scenario();
        this.deployment = scenario.deployment();
        this.clock = new VirtualDrainClock(run.loop(),
                deployment.drainerCrashSeconds().stream().map(s -> s * 1_000).toList());
        ModelCatalog catalog = ModelCatalog.of(List.of(model(scenario)));
        InMemoryRequestStore requests = new InMemoryRequestStore();
        this.queue = new ObservedQueue(InMemoryRequestQueue.create(requests, leases, catalog,
                ShardPicker.startingAt(0)), this::leftQueue, this::backInQueue);
        this.admissions = AdmissionService.create(queue, requests, leases, this::wake, this::resume);
        this.invocations = InvocationService.builder().catalog(catalog).requests(requests).queue(queue)
                .payloads(payloads).usage(InMemoryUsageLedger.create(UsageSharding.defaults()))
                .callback(this::resume).wake(this::wake).clock(clock::nowMillis).build();
        Sweeper sweeper = Sweeper.create(queue, requests, invocations, this::dispatch, this::resume,
                ShaperMetrics.NONE);
        boolean inline = deployment.dispatchMode() == DispatchMode.INLINE;
        this.inlineCalls = inline ? new SimulatedInlineCalls(DrainSettings.DEFAULT_INLINE_CALLS, this::callInline)
                : null;
        DrainService.Builder drainer = DrainService.builder().catalog(catalog).queue(queue).requests(requests)
                .leases(leases).board(new InMemoryModelStatusBoard()).dispatch(this::dispatch).wake(this::wake)
                .callback(this::resume).handoff(new StoredPacerHandoff()).clock(clock).sweeper(sweeper);
        if (inline) {
            drainer.settings(DrainSettings.defaults().withDispatch(DispatchMode.INLINE,
                    DrainSettings.DEFAULT_INLINE_CALLS)).inline(inlineCalls);
        }
        this.drains = drainer.build();
        this.finalizer = Finalizer.create(requests, queue, ShaperMetrics.NONE);
        this.safetyNet = SafetyNet.builder().catalog(catalog).queue(queue).leases(leases).wake(this::wake)
                .callback(this::resume).sweeper(sweeper).build();
        SplittableRandom random = run.random();
        this.queueProcessors = new SimulatedLambda(run.loop(), deployment.dispatch(), random.split());
        this.bedrockProcessors = new SimulatedLambda(run.loop(), deployment.dispatch(), random.split());
        this.arrivalsEndMillis = scenario.arrivalSeconds() * 1_000;
        this.body = converse(scenario.maxTokens());
        run.loop().schedule(random.nextLong(SAFETY_NET_MILLIS), this::safetyNet);
    }

    /** The scenario's model as the models file would configure it, paced by the scenario's settings. */
    static ModelConfig model(Scenario scenario) {
        long deadline = scenario.deadlineSeconds();
        return new ModelConfig(MODEL, "simulated.model-v1:0", Backend.CONVERSE, scenario.quota(),
                Math.max(scenario.maxTokens(), 1), Long.MAX_VALUE / 4, scenario.shaper(), 4, deadline, deadline, null);
    }

    @Override
    public void arrive(SimRequest request) {
        Tracked tracked = new Tracked(request);
        byId.put(request.id(), tracked);
        unfinished++;
        tracked.waiting = true;
        run.metrics().startedWaiting(run.now());
        long now = clock.nowMillis();
        long deadline = now + scenario.deadlineSeconds() * 1_000;
        PayloadRef stored = payloads.put(request.id(), PayloadKind.REQUEST, body,
                RequestRecord.ceilToSecond(deadline + NewRequest.DEFAULT_RETENTION_MILLIS));
        long estimate = (long) Math.ceil(request.estimatedInputTokens() * (1 + scenario.inputEstimateMargin()));
        Ticket ticket = new Ticket(request.id(), request.tenant(), MODEL, request.lane(), now, deadline,
                TokenUsage.of(estimate, request.maxTokens()), stored, null);
        admissions.admit(ticket, null, now);
        run.loop().after(scenario.deadlineSeconds() * 1_000 + ADMIT_TIMEOUT_AFTER_DEADLINE_MILLIS,
                () -> timedOut(tracked));
    }

    /** The workflow's Admit task timed out: the Finalize step records an honest outcome. */
    private void timedOut(Tracked tracked) {
        if (tracked.finished) {
            return;
        }
        SimRequest request = tracked.request;
        finalizer.finalizeRequest(request.id(), request.tenant(), "States.Timeout", "the Admit task timed out",
                clock.nowMillis()).filter(RequestRecord::isTerminal).ifPresent(this::resume);
    }

    @Override
    public DrainerActivity drainerActivity() {
        return new DrainerActivity(drainerInvocations, leaseGranted, handoffs, crashes, staleRequeues,
                bedrockProcessors.coldStarts(), bedrockProcessors.maxBusy(), deployment.dispatchMode().configName(),
                inlineCalls == null ? 0 : inlineCalls.started(), dispatched, queueProcessors.busyMillis() / 1_000.0,
                bedrockProcessors.busyMillis() / 1_000.0);
    }

    /** {@code DrainerWake}: an asynchronous invocation of the Queue Processor. */
    private void wake(String modelKey) {
        drainerInvocations++;
        queueProcessors.invoke(this::drain);
    }

    /** One Queue Processor invocation: drains until idle, its time limit, or its crash. */
    private void drain(Runnable instanceFree) {
        long start = clock.nowMillis();
        String owner = "drainer-" + drainerInvocations + "@" + run.now();
        SimulatedInlineCalls.Invocation invocation = new SimulatedInlineCalls.Invocation();
        if (inlineCalls != null) {
            inlineCalls.enter(invocation);
        }
        try {
            DrainService.Report report = inlineCalls == null
                    ? drains.drain(MODEL, owner, start + deployment.drainerLimitSeconds() * 1_000)
                    : drains.drainInvocation(MODEL, owner, start, start + deployment.drainerInvocationMillis());
            if (report.leaseGranted()) {
                leaseGranted++;
            }
            if ("time limit".equals(report.stoppedBecause())) {
                handoffs++;
            }
        } catch (DrainerCrash e) {
            leaseGranted++;
            crashes++;
            invocation.crash();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("a simulated drain cannot be interrupted", e);
        } finally {
            if (inlineCalls != null) {
                inlineCalls.leave();
            }
            // the invocation returns once the calls it made have ended
            invocation.whenIdle(instanceFree);
        }
    }

    /** A call in the drainer: the Bedrock Processor's steps at once, ended only if the drainer still runs. */
    private void callInline(String requestId, SimulatedInlineCalls.Invocation owner, InlineCalls.CallEnded onEnd) {
        InvocationService.Start start = invocations.begin(requestId);
        if (start instanceof InvocationService.NoCall none) {
            if (none.result() == InvocationService.Result.STALE) {
                staleRequeues++;
            }
            owner.ended();
            onEnd.ended(requestId, none.record(), InvocationService.Ended.NOT_CALLED);
            return;
        }
        InvocationService.Call call = (InvocationService.Call) start;
        Tracked tracked = byId.get(requestId);
        long sentAt = run.now();
        run.send(tracked.request, outcome -> run.loop().after(deployment.settlementDelayMillis(),
                () -> endInline(requestId, call, tracked, outcome, run.now() - sentAt, owner, onEnd)));
    }

    private void endInline(String requestId, InvocationService.Call call, Tracked tracked, CallOutcome outcome,
            long serviceMillis, SimulatedInlineCalls.Invocation owner, InlineCalls.CallEnded onEnd) {
        if (!owner.alive()) {
            return; // died with its drainer: the request stays INVOKING for the sweeper
        }
        InvocationService.Ended ended = invocations.completeToEnd(call, outcome(tracked.request, outcome,
                serviceMillis));
        if (ended.result() == InvocationService.Result.REQUEUED) {
            run.metrics().requeued();
        }
        owner.ended();
        onEnd.ended(requestId, ended.record(), ended.reachedByMillis());
    }

    /** {@code InvocationDispatch}: an asynchronous invocation of the Bedrock Processor. */
    private void dispatch(String modelKey, String requestId) {
        dispatched++;
        bedrockProcessors.invoke(instanceFree -> process(requestId, instanceFree));
    }

    /** The Bedrock Processor: begin, the simulated Bedrock call, and complete once the outcome is written. */
    private void process(String requestId, Runnable instanceFree) {
        InvocationService.Start start = invocations.begin(requestId);
        if (start instanceof InvocationService.NoCall none) {
            if (none.result() == InvocationService.Result.STALE) {
                staleRequeues++;
            }
            instanceFree.run();
            return;
        }
        InvocationService.Call call = (InvocationService.Call) start;
        Tracked tracked = byId.get(requestId);
        long sentAt = run.now();
        run.send(tracked.request, outcome -> run.loop().after(deployment.settlementDelayMillis(), () -> {
            InvocationService.Result result = invocations.complete(call, outcome(tracked.request, outcome,
                    run.now() - sentAt));
            if (result == InvocationService.Result.REQUEUED) {
                run.metrics().requeued();
            }
            instanceFree.run();
        }));
    }

    /** The drainer admitted the request: it has left the queue. */
    private void leftQueue(String requestId) {
        Tracked tracked = byId.get(requestId);
        if (tracked != null && tracked.waiting) {
            tracked.waiting = false;
            run.metrics().stoppedWaiting(run.now());
        }
    }

    /** The Bedrock Processor put the request back (a throttle, a transient failure, a stale admission). */
    private void backInQueue(String requestId) {
        Tracked tracked = byId.get(requestId);
        if (tracked != null && !tracked.waiting) {
            tracked.waiting = true;
            run.metrics().startedWaiting(run.now());
        }
    }

    /** {@code WorkflowCallback}: the request's terminal status is written; its caller learns of it now. */
    private void resume(RequestRecord terminal) {
        Tracked tracked = byId.get(terminal.requestId());
        if (tracked == null || tracked.finished) {
            return;
        }
        tracked.finished = true;
        unfinished--;
        if (tracked.waiting) {
            tracked.waiting = false;
            run.metrics().stoppedWaiting(run.now());
        }
        run.finish(tracked.request, terminal.state() == RequestState.SUCCEEDED);
    }

    /** The 1-minute schedule runs the production safety net's sweep. */
    private void safetyNet() {
        safetyNet.sweep(clock.nowMillis());
        boolean more = run.now() < arrivalsEndMillis || unfinished > 0;
        if (more && run.now() < arrivalsEndMillis + RUN_LIMIT_AFTER_ARRIVALS_MILLIS) {
            run.loop().after(SAFETY_NET_MILLIS, this::safetyNet);
        }
    }

    private static Payload converse(long maxTokens) {
        return Payload.json("{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"a simulated prompt\"}]}],"
                + "\"inferenceConfig\":{\"maxTokens\":" + maxTokens + "}}");
    }

    /**
     * The simulated call's outcome as the processor's invoker reports it, with Bedrock's own
     * latency. The simulated processor completes {@code settlementDelayMillis} after the answer,
     * where a real one reads its clock as the answer comes: the latency is counted from the call's
     * start to the completion, so that the completion's clock less it is when the call reached
     * Bedrock, as a real processor computes it.
     */
    private static BedrockOutcome outcome(SimRequest request, CallOutcome outcome, long serviceMillis) {
        return switch (outcome) {
            case SUCCEEDED -> {
                TokenUsage used = request.actualUsage();
                yield new BedrockOutcome.Succeeded(used, "end_turn", "{\"output\":{\"message\":{\"role\":\"assistant\","
                        + "\"content\":[{\"text\":\"answer\"}]}},\"stopReason\":\"end_turn\",\"usage\":{\"inputTokens\":"
                        + used.inputTokens() + ",\"outputTokens\":" + used.outputTokens() + "},"
                        + "\"metrics\":{\"latencyMs\":" + serviceMillis + "}}", serviceMillis);
            }
            case THROTTLED -> new BedrockOutcome.Throttled("Too many tokens, please wait before trying again.");
            case SERVER_ERROR -> new BedrockOutcome.Transient(TransientKind.INTERNAL_SERVER, 500,
                    "The server encountered an internal error.");
            case TIMED_OUT -> new BedrockOutcome.Transient(TransientKind.CLIENT_TIMEOUT, 0, "no answer in time");
        };
    }
}
