package io.parsa.train;

import io.parsa.avro.VAssignment;
import io.parsa.common.UsageException;
import io.parsa.engine.Mix64;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.IntPredicate;
import java.util.function.LongPredicate;
import java.util.function.LongToIntFunction;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Where the parameters of each key live during training: the pipeline's v-assignment ("v-assignment"), a seeded
 * random hash of the key ("random"), or key mod k ("hash"). A process reads only the part of a v-assignment it
 * needs: a worker the keys of its shard, a server the keys of its own part.
 */
public final class KeyPlacement {
  public static final String V_ASSIGNMENT = "v-assignment";
  public static final String RANDOM = "random";
  public static final String HASH = "hash";

  private KeyPlacement() {}

  /** Whether the placement is a function of the key alone (no file to read). */
  public static boolean computed(String kind) {
    return RANDOM.equals(kind) || HASH.equals(kind);
  }

  /** The server of each key for a computed placement. */
  public static LongToIntFunction computed(String kind, long seed, int k) {
    switch (kind) {
      case RANDOM:
        return key -> Mix64.bucket(seed, key, k);
      case HASH:
        return key -> (int) Math.floorMod(key, (long) k);
      default:
        throw new IllegalArgumentException("not a computed key placement: " + kind);
    }
  }

  /**
   * The entries of the v-assignment in {@code dir} whose key passes {@code keepKey} and whose part passes
   * {@code keepPart} (absent keys answer -1).
   */
  public static Long2IntOpenHashMap read(FileSystem fs, Path dir, int k, LongPredicate keepKey, IntPredicate keepPart)
      throws IOException {
    if (!fs.exists(dir)) {
      throw new UsageException(dir + ": no v-assignment directory (expected a pipeline output)");
    }
    Long2IntOpenHashMap map = new Long2IntOpenHashMap();
    map.defaultReturnValue(-1);
    for (FileStatus st : fs.listStatus(dir, f -> f.getName().endsWith(".avro") && !f.getName().startsWith("."))) {
      try (InputStream in = fs.open(st.getPath());
          DataFileStream<VAssignment> r = new DataFileStream<>(in, new SpecificDatumReader<>(VAssignment.class))) {
        VAssignment a = null;
        while (r.hasNext()) {
          a = r.next(a);
          if (a.getPart() < 0 || a.getPart() >= k) {
            throw new UsageException(st.getPath() + ": key " + a.getKey() + " on part " + a.getPart()
                + ", expected a part in [0, " + k + ")");
          }
          if (keepKey.test(a.getKey()) && keepPart.test(a.getPart())) {
            map.put(a.getKey(), a.getPart());
          }
        }
      }
    }
    return map;
  }

  /** {@code map} as a placement that names the v-assignment when a key has no entry. */
  public static LongToIntFunction lookup(Long2IntOpenHashMap map, Path dir) {
    return key -> {
      int part = map.get(key);
      if (part < 0) {
        throw new UsageException(dir + ": key " + key + " of the shards has no v-assignment");
      }
      return part;
    };
  }
}
