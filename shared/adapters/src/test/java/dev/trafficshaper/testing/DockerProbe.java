package dev.trafficshaper.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Says quickly whether a Docker engine may answer, before Testcontainers is asked: with no
 * socket and no {@code DOCKER_HOST} there is nothing to wait for.
 */
final class DockerProbe {

    private DockerProbe() {
    }

    static boolean engineAnswers() {
        String host = System.getenv("DOCKER_HOST");
        boolean socket = Files.exists(Path.of("/var/run/docker.sock"))
                || Files.exists(Path.of(System.getProperty("user.home"), ".docker", "run", "docker.sock"));
        if ((host == null || host.isBlank()) && !socket) {
            return false;
        }
        try {
            return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
