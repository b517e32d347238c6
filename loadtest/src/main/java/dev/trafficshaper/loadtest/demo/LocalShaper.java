package dev.trafficshaper.loadtest.demo;

import dev.trafficshaper.local.LocalClock;
import dev.trafficshaper.local.LocalRuntime;
import dev.trafficshaper.local.LocalServer;
import dev.trafficshaper.model.ModelCatalog;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;

/** The shaper as a user runs it locally: the local runtime behind its HTTP API, on a loopback port. */
final class LocalShaper implements AutoCloseable {

    private final LocalRuntime runtime;
    private final LocalServer server;

    private LocalShaper(LocalRuntime runtime, LocalServer server) {
        this.runtime = runtime;
        this.server = server;
    }

    static LocalShaper start(ModelCatalog catalog, URI bedrockEndpoint, LocalClock clock) {
        LocalRuntime runtime = LocalRuntime.builder().catalog(catalog).bedrockEndpoint(bedrockEndpoint).clock(clock)
                .build();
        try {
            return new LocalShaper(runtime,
                    LocalServer.start(runtime, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
        } catch (RuntimeException e) {
            runtime.close();
            throw e;
        }
    }

    URI baseUri() {
        return server.baseUri();
    }

    @Override
    public void close() {
        server.close();
        runtime.close();
    }
}
