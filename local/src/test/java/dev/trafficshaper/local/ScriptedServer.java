package dev.trafficshaper.local;

import dev.trafficshaper.model.ModelCatalog;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The local server on 127.0.0.1 over a runtime whose model is a {@link ScriptedInvoker}, started
 * before each test and closed after it ({@code @RegisterExtension}); a held call is released first,
 * so no test leaves the runtime's calls waiting.
 */
final class ScriptedServer implements BeforeEachCallback, AfterEachCallback {

    private final String models;
    private final boolean strictCallbacks;
    private ScriptedInvoker model;
    private LocalRuntime runtime;
    private LocalServer server;
    private Api api;

    private ScriptedServer(String models, boolean strictCallbacks) {
        this.models = models;
        this.strictCallbacks = strictCallbacks;
    }

    /** The runtime as the local server runs by default: http and loopback callbacks allowed. */
    static ScriptedServer of(String models) {
        return new ScriptedServer(models, false);
    }

    /** The runtime with {@code --strict-callbacks}, as deployed: https and public callbacks only. */
    static ScriptedServer strict(String models) {
        return new ScriptedServer(models, true);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        model = new ScriptedInvoker();
        runtime = LocalRuntime.builder().catalog(ModelCatalog.parse(models)).strictCallbacks(strictCallbacks)
                .invoker(model).build();
        server = LocalServer.start(runtime, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        api = new Api(server.baseUri());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        model.release();
        server.close();
        runtime.close();
    }

    ScriptedInvoker model() {
        return model;
    }

    LocalRuntime runtime() {
        return runtime;
    }

    LocalServer server() {
        return server;
    }

    Api api() {
        return api;
    }
}
