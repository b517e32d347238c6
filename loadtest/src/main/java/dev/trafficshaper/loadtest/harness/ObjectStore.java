package dev.trafficshaper.loadtest.harness;

import java.util.List;
import java.util.Optional;

/**
 * Where a run keeps its files, by key relative to the run's root: a local directory for
 * {@code run --local}, an S3 prefix ({@code s3://bucket/runs/<id>/}) on AWS. The report reads
 * either through this one port.
 */
public interface ObjectStore {

    void put(String key, byte[] bytes);

    /** The object's bytes; empty when there is none. */
    Optional<byte[]> get(String key);

    /** Every key that starts with {@code prefix}, sorted. */
    List<String> list(String prefix);

    /** Where this is, for messages: a directory or an {@code s3://} URI. */
    String describe();
}
