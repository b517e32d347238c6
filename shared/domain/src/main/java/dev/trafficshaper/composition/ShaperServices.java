package dev.trafficshaper.composition;

import dev.trafficshaper.delivery.Notifier;
import dev.trafficshaper.delivery.StatusService;
import dev.trafficshaper.delivery.WebhookSender;
import dev.trafficshaper.lifecycle.AdmissionService;
import dev.trafficshaper.lifecycle.DispatchMode;
import dev.trafficshaper.lifecycle.DrainService;
import dev.trafficshaper.lifecycle.DrainSettings;
import dev.trafficshaper.lifecycle.Finalizer;
import dev.trafficshaper.lifecycle.HandoffThenResume;
import dev.trafficshaper.lifecycle.InlineCalls;
import dev.trafficshaper.lifecycle.WorkflowCallback;
import dev.trafficshaper.lifecycle.Sweeper;
import dev.trafficshaper.lifecycle.InvocationService;
import dev.trafficshaper.lifecycle.SafetyNet;
import dev.trafficshaper.lifecycle.SubmissionService;
import dev.trafficshaper.lifecycle.ThreadedInlineCalls;
import dev.trafficshaper.submission.SubmissionParser;

/**
 * The one place the shaper's services are built: ports in, services out. The Lambda functions'
 * root ({@code functions/.../Shaper}) and the local runtime ({@code local/.../LocalRuntime}) each
 * assemble their adapters into {@link ShaperPorts} and take every service from here, so the two
 * cannot wire a service differently.
 *
 * <p>Each service is built on first use, once, from only the ports it needs: a Lambda function
 * asks for one service and so creates only that service's clients. The services may be shared
 * by many threads (the local runtime does); a model is drained by one lease holder at a time.
 */
public final class ShaperServices {

    private final ShaperPorts ports;
    private final Lazy<SubmissionService> submissions = Lazy.of(this::newSubmissions);
    private final Lazy<AdmissionService> admissions = Lazy.of(this::newAdmissions);
    private final Lazy<DrainService> drains = Lazy.of(this::newDrains);
    private final Lazy<SafetyNet> safetyNet = Lazy.of(this::newSafetyNet);
    private final Lazy<InvocationService> invocations = Lazy.of(this::newInvocations);
    private final Lazy<Finalizer> finalizer = Lazy.of(this::newFinalizer);
    private final Lazy<StatusService> status = Lazy.of(this::newStatus);
    private final Lazy<Notifier> notifier = Lazy.of(this::newNotifier);
    private final Lazy<WebhookSender> webhookSender = Lazy.of(this::newWebhookSender);
    /** The port's callback, after the delivery hand-off (the notifier is built on the first hand-off). */
    private final Lazy<WorkflowCallback> callback = Lazy.of(() -> HandoffThenResume.create(
            terminal -> notifier().handOff(terminal), ports().callback()));

    private ShaperServices(ShaperPorts ports) {
        this.ports = ports;
    }

    public static ShaperServices create(ShaperPorts ports) {
        if (ports == null) {
            throw new IllegalArgumentException("ports are required");
        }
        return new ShaperServices(ports);
    }

    public ShaperPorts ports() {
        return ports;
    }

    /** {@code POST /v1/requests}: validate, estimate, route, store the body. */
    public SubmissionService submissions() {
        return submissions.get();
    }

    /** The Admit step: enqueue with the workflow's token, wake a drainer. */
    public AdmissionService admissions() {
        return admissions.get();
    }

    /**
     * The Queue Processor: one lease holder per model paces and dispatches; with the drain settings'
     * {@link DispatchMode#INLINE} it runs the calls that fit itself, through {@link #invocations()}.
     */
    public DrainService drains() {
        return drains.get();
    }

    /** The periodic sweep: wakes drainers for unattended work, expires what nobody will admit. */
    public SafetyNet safetyNet() {
        return safetyNet.get();
    }

    /** The Bedrock Processor: one call per admission, write the outcome, then signal. */
    public InvocationService invocations() {
        return invocations.get();
    }

    /** Records an honest outcome for a workflow that timed out, was stopped or failed. */
    public Finalizer finalizer() {
        return finalizer.get();
    }

    /** {@code GET /v1/requests/{id}} and {@code GET /v1/models}. */
    public StatusService status() {
        return status.get();
    }

    /** The delivery hand-off: the outcome event, and the webhook queued; run before every resume. */
    public Notifier notifier() {
        return notifier.get();
    }

    /** One signed webhook attempt from the webhook queue. */
    public WebhookSender webhookSender() {
        return webhookSender.get();
    }

    private SubmissionService newSubmissions() {
        ShaperSettings settings = ports.settings();
        return SubmissionService.builder()
                .catalog(ports.catalog())
                .parser(SubmissionParser.create(ports.catalog(), settings.callbacks(), settings.maxBodyBytes()))
                .estimator(ports.estimator())
                .payloads(ports.payloads())
                .requests(ports.requests())
                .board(ports.board())
                .ids(ports.ids())
                .build();
    }

    private AdmissionService newAdmissions() {
        return AdmissionService.create(ports.queue(), ports.requests(), ports.leases(), ports.wake(),
                callback.get());
    }

    private DrainService newDrains() {
        DrainSettings drain = ports.settings().drain();
        // Calls in the drainer use the Bedrock Processor's own service (and so the model invoker) only in inline mode.
        InlineCalls inline = drain.dispatchMode() == DispatchMode.INLINE
                ? ThreadedInlineCalls.create(invocations(), drain.inlineCalls()) : null;
        return DrainService.builder()
                .catalog(ports.catalog())
                .queue(ports.queue())
                .requests(ports.requests())
                .leases(ports.leases())
                .board(ports.board())
                .dispatch(ports.dispatch())
                .wake(ports.wake())
                .callback(callback.get())
                .handoff(ports.handoff())
                .metrics(ports.metrics())
                .clock(ports.clock())
                .settings(ports.settings().drain())
                .sweeper(newSweeper())
                .inline(inline)
                .build();
    }

    /**
     * The sweeper the drainer and the safety net run. Its processor service only finishes answered
     * requests, so it is built without the model invoker (no Bedrock client in the Queue Processor).
     */
    private Sweeper newSweeper() {
        InvocationService finisher = InvocationService.builder()
                .catalog(ports.catalog())
                .requests(ports.requests())
                .queue(ports.queue())
                .payloads(ports.payloads())
                .usage(ports.usage())
                .callback(callback.get())
                .wake(ports.wake())
                .metrics(ports.metrics())
                .clock(ports.clock()::nowMillis)
                .build();
        return Sweeper.create(ports.queue(), ports.requests(), finisher, ports.dispatch(), callback.get(),
                ports.metrics());
    }

    private SafetyNet newSafetyNet() {
        return SafetyNet.builder()
                .catalog(ports.catalog())
                .queue(ports.queue())
                .leases(ports.leases())
                .wake(ports.wake())
                .callback(callback.get())
                .metrics(ports.metrics())
                .sweeper(newSweeper())
                .build();
    }

    private InvocationService newInvocations() {
        return InvocationService.builder()
                .catalog(ports.catalog())
                .requests(ports.requests())
                .queue(ports.queue())
                .payloads(ports.payloads())
                .usage(ports.usage())
                .invoker(ports.invoker())
                .callback(callback.get())
                .wake(ports.wake())
                .metrics(ports.metrics())
                .clock(ports.clock()::nowMillis)
                .build();
    }

    private Finalizer newFinalizer() {
        return Finalizer.create(ports.requests(), ports.queue(), ports.metrics(),
                terminal -> notifier().handOff(terminal));
    }

    private StatusService newStatus() {
        return StatusService.create(ports.catalog(), ports.requests(), ports.payloads(), ports.board());
    }

    private Notifier newNotifier() {
        return Notifier.create(ports.requests(), ports.webhookQueue(), ports.events(), ports.clock()::nowMillis);
    }

    private WebhookSender newWebhookSender() {
        return WebhookSender.builder()
                .secret(ports.webhookSecret())
                .requests(ports.requests())
                .status(status())
                .transport(ports.webhooks())
                .callbacks(ports.settings().callbacks())
                .schedule(ports.settings().delivery())
                .build();
    }
}
