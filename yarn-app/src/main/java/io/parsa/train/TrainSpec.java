package io.parsa.train;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.parsa.common.JsonFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * One placement's training runs as a YARN application: written by {@code train-bench --mode yarn}, read by the
 * master ({@link TrainMaster}) and handed to every server and worker container when it registers.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class TrainSpec {
  /** Machines: k servers and k workers. */
  public int k;
  /** Name of the placement (parsa, random, hash). */
  public String placement;
  /** How keys are placed: {@link KeyPlacement#V_ASSIGNMENT}, {@link KeyPlacement#RANDOM} or {@link KeyPlacement#HASH}. */
  public String keys;
  /** The v-assignment directory (for {@link KeyPlacement#V_ASSIGNMENT}). */
  public String vAssignment;
  /** Seed of the random key placement. */
  public long seed;
  /** Shard file of worker i, fully qualified. */
  public List<String> shards = new ArrayList<>();
  /** Model and run settings (the link rate of each run is {@link #linkMbps}'s). */
  public TrainRun.Settings settings = new TrainRun.Settings();
  /** One run per emulated link rate, on the same containers. */
  public List<Double> linkMbps = new ArrayList<>();
  /** File the master writes the runs' figures to (JSON). */
  public String result;
  /** parsa.* configuration entries forwarded to the containers. */
  public Map<String, String> conf = new LinkedHashMap<>();

  /** A copy of {@code base} with the forwarded entries on top. */
  public Configuration applyTo(Configuration base) {
    Configuration c = new Configuration(base);
    conf.forEach(c::set);
    return c;
  }

  public String toJson() {
    try {
      return JsonFiles.MAPPER.writeValueAsString(this);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static TrainSpec fromJson(String json) {
    try {
      return JsonFiles.MAPPER.readValue(json, TrainSpec.class);
    } catch (IOException e) {
      throw new UncheckedIOException("bad train-bench job description: " + e.getMessage(), e);
    }
  }

  /** What the master writes to {@link #result}: one entry per link rate. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public static final class Result {
    public String placement;
    public List<Run> runs = new ArrayList<>();
  }

  /** The figures of one run. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public static final class Run {
    public double linkMbps;
    public long rows;
    public long nonZeros;
    public long interKeyAccessesPerEpoch;
    public long innerKeyAccessesPerEpoch;
    public long interRequestsPerEpoch;
    public List<TrainRun.Epoch> epochs = new ArrayList<>();
  }
}
