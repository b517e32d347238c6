package dev.trafficshaper.loadtest.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** A run's files in a local directory; keys are relative paths with {@code /} separators. */
public final class DirectoryObjectStore implements ObjectStore {

    private final Path root;

    public DirectoryObjectStore(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    public Path root() {
        return root;
    }

    /** The file a key names; refuses keys that would leave the root. */
    public Path path(String key) {
        Path file = root.resolve(key).normalize();
        if (!file.startsWith(root) || file.equals(root)) {
            throw new IllegalArgumentException("key '" + key + "' is outside " + root);
        }
        return file;
    }

    @Override
    public void put(String key, byte[] bytes) {
        Path file = path(key);
        try {
            Files.createDirectories(file.getParent());
            Path partial = file.resolveSibling(file.getFileName() + ".partial");
            Files.write(partial, bytes);
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    @Override
    public Optional<byte[]> get(String key) {
        Path file = path(key);
        try {
            return Optional.of(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    @Override
    public List<String> list(String prefix) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .map(file -> root.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/"))
                    .filter(key -> key.startsWith(prefix) && !key.endsWith(".partial"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + root, e);
        }
    }

    @Override
    public String describe() {
        return root.toString();
    }
}
