package io.parsa.jobs.pipeline;

import io.parsa.common.JsonFiles;
import io.parsa.jobs.common.InputFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * What each step of a pipeline directory was computed from, so that a resumed run reuses a step only when it can
 * prove the step's inputs are unchanged. For every step it keeps a fingerprint of what the step read when it ran:
 * the raw input files for ingest (path, length, modification time and a content checksum), the listing (relative
 * path, length, modification time) of the upstream step outputs for the others, and the step's arguments. A
 * redone step writes new files, so the fingerprints of every step downstream of it change and they are redone
 * as well. Kept as {@code _provenance.json} in the pipeline directory.
 */
final class Provenance {

  /** File name inside the pipeline directory. */
  static final String FILE = "_provenance.json";

  /**
   * Raw input files up to this size get a checksum over their whole content when the file system offers none of
   * its own (HDFS does; the local file system does not); larger ones a checksum of their first and last
   * {@link #SAMPLE_BYTES_DEFAULT} bytes (long, bytes).
   */
  static final String FULL_CHECKSUM_MAX_BYTES = "parsa.pipeline.checksum.full.max.bytes";
  static final long FULL_CHECKSUM_MAX_BYTES_DEFAULT = 64L << 20;

  /** Bytes read from each end of a large raw input file for its sampled checksum (int, bytes). */
  static final String SAMPLE_BYTES = "parsa.pipeline.checksum.sample.bytes";
  static final int SAMPLE_BYTES_DEFAULT = 1 << 20;

  /** Recorded state of one step: the fingerprint of what it read, and its items for messages. */
  record StepRecord(String fingerprint, Map<String, String> inputs, String finished) {}

  private final Map<String, StepRecord> steps;

  private Provenance(Map<String, StepRecord> steps) {
    this.steps = steps;
  }

  /** The recorded state of {@code dir}, or an empty one when there is none (or it is unreadable). */
  static Provenance read(FileSystem fs, Path dir) throws IOException {
    Path file = new Path(dir, FILE);
    Map<String, StepRecord> steps = new LinkedHashMap<>();
    if (fs.exists(file)) {
      try {
        com.fasterxml.jackson.databind.JsonNode root = JsonFiles.MAPPER.readTree(fs.open(file));
        root.path("steps").fields().forEachRemaining(e -> {
          Map<String, String> inputs = new TreeMap<>();
          e.getValue().path("inputs").fields().forEachRemaining(i -> inputs.put(i.getKey(), i.getValue().asText()));
          steps.put(e.getKey(), new StepRecord(e.getValue().path("fingerprint").asText(), inputs,
              e.getValue().path("finished").asText()));
        });
      } catch (com.fasterxml.jackson.core.JacksonException e) {
        // an unreadable record proves nothing: every step is redone
        steps.clear();
      }
    }
    return new Provenance(steps);
  }

  static Provenance empty() {
    return new Provenance(new LinkedHashMap<>());
  }

  StepRecord get(String step) {
    return steps.get(step);
  }

  void put(String step, StepRecord r) {
    steps.put(step, r);
  }

  void write(FileSystem fs, Path dir) throws IOException {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("about", "what each step read when it ran; a resumed pipeline reuses a step only if this still holds");
    root.put("steps", steps);
    JsonFiles.write(fs, new Path(dir, FILE), root);
  }

  /** What one step reads now: item name (a file or a directory entry) to its identity, in name order. */
  static final class Inputs {
    private final Map<String, String> items = new TreeMap<>();

    Map<String, String> items() {
      return items;
    }

    /** One fingerprint of every item and the step's arguments. */
    String fingerprint(List<String> args) {
      try {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        for (String a : args) {
          md.update(a.getBytes(StandardCharsets.UTF_8));
          md.update((byte) 0);
        }
        for (Map.Entry<String, String> e : items.entrySet()) {
          md.update(e.getKey().getBytes(StandardCharsets.UTF_8));
          md.update((byte) 1);
          md.update(e.getValue().getBytes(StandardCharsets.UTF_8));
          md.update((byte) 2);
        }
        return HexFormat.of().formatHex(md.digest());
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is part of every JRE", e);
      }
    }

    /**
     * Adds every raw input file of {@code --input}: length, modification time and a content checksum (the file
     * system's own when it has one, else CRC32C over the content or a head-and-tail sample of large files).
     */
    Inputs addRawInput(Configuration conf, String input) throws IOException {
      for (FileStatus f : InputFiles.resolve(conf, InputFiles.split(input))) {
        FileSystem fs = f.getPath().getFileSystem(conf);
        items.put("input " + f.getPath(), "length=" + f.getLen() + " mtime=" + f.getModificationTime()
            + " checksum=" + checksum(conf, fs, f));
      }
      return this;
    }

    /** Adds the listing of a step output directory (every file below it: length and modification time). */
    Inputs addOutput(FileSystem fs, String label, Path dir) throws IOException {
      if (!fs.exists(dir)) {
        items.put(label, "missing");
        return this;
      }
      RemoteIterator<LocatedFileStatus> it = fs.listFiles(dir, true);
      String root = fs.makeQualified(dir).toUri().getPath();
      int files = 0;
      while (it.hasNext()) {
        LocatedFileStatus f = it.next();
        String rel = f.getPath().toUri().getPath().substring(root.length());
        items.put(label + rel, "length=" + f.getLen() + " mtime=" + f.getModificationTime());
        files++;
      }
      if (files == 0) {
        items.put(label, "empty");
      }
      return this;
    }
  }

  /** The file system's own checksum of {@code f}, or a CRC32C of its content (whole, or head and tail). */
  static String checksum(Configuration conf, FileSystem fs, FileStatus f) throws IOException {
    FileChecksum own = fs.getFileChecksum(f.getPath());
    if (own != null) {
      return own.getAlgorithmName() + ":" + HexFormat.of().formatHex(own.getBytes());
    }
    long full = conf.getLong(FULL_CHECKSUM_MAX_BYTES, FULL_CHECKSUM_MAX_BYTES_DEFAULT);
    int sample = conf.getInt(SAMPLE_BYTES, SAMPLE_BYTES_DEFAULT);
    CRC32C crc = new CRC32C();
    byte[] buf = new byte[64 << 10];
    try (org.apache.hadoop.fs.FSDataInputStream in = fs.open(f.getPath())) {
      if (f.getLen() <= full) {
        update(crc, in, buf, Long.MAX_VALUE);
        return "crc32c:" + Long.toHexString(crc.getValue());
      }
      update(crc, in, buf, sample);
      in.seek(f.getLen() - sample);
      update(crc, in, buf, sample);
      return "crc32c-head-tail-" + sample + ":" + Long.toHexString(crc.getValue());
    }
  }

  private static void update(CRC32C crc, InputStream in, byte[] buf, long limit) throws IOException {
    long left = limit;
    int n;
    while (left > 0 && (n = in.read(buf, 0, (int) Math.min(buf.length, left))) > 0) {
      crc.update(buf, 0, n);
      left -= n;
    }
  }

  /**
   * Human-readable differences between a recorded step's inputs and today's, at most {@code max} of them: raw
   * input files one by one, upstream output directories as a whole ("blocks changed").
   */
  static List<String> differences(Map<String, String> before, Map<String, String> now, int max) {
    java.util.Set<String> out = new java.util.LinkedHashSet<>();
    for (Map.Entry<String, String> e : now.entrySet()) {
      String old = before.get(e.getKey());
      if (old == null) {
        out.add(isRaw(e.getKey()) ? e.getKey() + " is new" : group(e.getKey()) + " changed");
      } else if (!old.equals(e.getValue())) {
        out.add(isRaw(e.getKey()) ? e.getKey() + " changed (" + old + " -> " + e.getValue() + ")"
            : group(e.getKey()) + " changed");
      }
    }
    for (String k : before.keySet()) {
      if (!now.containsKey(k)) {
        out.add(isRaw(k) ? k + " is gone" : group(k) + " changed");
      }
    }
    List<String> list = new ArrayList<>(out);
    if (list.size() > max) {
      int more = list.size() - max;
      list = new ArrayList<>(list.subList(0, max));
      list.add("and " + more + " more");
    }
    return list;
  }

  private static boolean isRaw(String item) {
    return item.startsWith("input ");
  }

  private static String group(String item) {
    int slash = item.indexOf('/');
    return slash < 0 ? item : item.substring(0, slash);
  }
}
