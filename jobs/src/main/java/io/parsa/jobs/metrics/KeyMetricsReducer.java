package io.parsa.jobs.metrics;

import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.Mix;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Per key j: the parts whose rows use it under the placed U (P_j) and under the random U (Q_j), its server part
 * under the placed V (from the v-assignment) and under the random V (mix(seed ^ salt, j) mod k). Adds the key's
 * contribution to each part's figures, written as part stats at the end:
 * <ul>
 *   <li>{@code <p>.workingSet}[i] += 1 for i in P_j (M_i = |N(U_i)|)</li>
 *   <li>{@code <p>.serverKeys}[v] += 1 (|V_i|)</li>
 *   <li>{@code <p>.inner}[v] += 1 if v in P_j (|N(U_v) ∩ V_v|)</li>
 *   <li>{@code <p>.served}[v] += |P_j \ {v}| (sum_{l != v} |V_v ∩ N(U_l)|)</li>
 * </ul>
 * for p = placed and random; then T_i = (M_i - inner_i) + served_i.
 */
public class KeyMetricsReducer extends Reducer<LongWritable, JoinValue, NullWritable, NullWritable> {

  public static final String PLACED = "placed";
  public static final String RANDOM = "random";
  public static final String WORKING_SET = ".workingSet";
  public static final String SERVER_KEYS = ".serverKeys";
  public static final String INNER = ".inner";
  public static final String SERVED = ".served";

  private final PartStats stats = new PartStats();
  private int k;
  private long seed;
  private boolean[] placedUse;
  private boolean[] randomUse;
  private long[][] placed;
  private long[][] random;

  @Override
  protected void setup(Context context) {
    k = MrKeys.k(context.getConfiguration());
    seed = MrKeys.seed(context.getConfiguration());
    placedUse = new boolean[k];
    randomUse = new boolean[k];
    placed = arrays(PLACED);
    random = arrays(RANDOM);
  }

  private long[][] arrays(String p) {
    return new long[][] {stats.array(p + WORKING_SET, k), stats.array(p + SERVER_KEYS, k),
        stats.array(p + INNER, k), stats.array(p + SERVED, k)};
  }

  @Override
  protected void reduce(LongWritable key, Iterable<JoinValue> values, Context context)
      throws IOException, InterruptedException {
    Arrays.fill(placedUse, false);
    Arrays.fill(randomUse, false);
    int vCount = 0;
    int vPart = -1;
    boolean used = false;
    for (JoinValue v : values) {
      if (v.tag() == JoinValue.PAIR) {
        placedUse[v.a()] = true;
        randomUse[v.b()] = true;
        used = true;
      } else if (v.tag() == JoinValue.PART) {
        vCount++;
        vPart = v.a();
      } else {
        throw new IllegalStateException("unexpected value for key " + key + ": " + v);
      }
    }
    if (!used) {
      context.getCounter(MetricsTool.Counters.V_WITHOUT_USE).increment(1);
      return;
    }
    context.getCounter(MetricsTool.Counters.KEYS).increment(1);
    if (vCount == 0) {
      context.getCounter(MetricsTool.Counters.KEYS_WITHOUT_V).increment(1);
      return;
    }
    if (vCount > 1) {
      context.getCounter(MetricsTool.Counters.DUPLICATE_V).increment(vCount - 1);
      return;
    }
    if (vPart < 0 || vPart >= k) {
      context.getCounter(MetricsTool.Counters.BAD_V_PART).increment(1);
      return;
    }
    add(placed, placedUse, vPart);
    add(random, randomUse, Mix.randomKeyPart(seed, key.get(), k));
  }

  private static void add(long[][] a, boolean[] use, int server) {
    int n = 0;
    for (int i = 0; i < use.length; i++) {
      if (use[i]) {
        a[0][i]++;
        n++;
      }
    }
    a[1][server]++;
    if (use[server]) {
      a[2][server]++;
      a[3][server] += n - 1;
    } else {
      a[3][server] += n;
    }
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }
}
