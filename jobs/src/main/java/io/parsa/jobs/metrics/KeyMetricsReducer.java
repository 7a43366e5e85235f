package io.parsa.jobs.metrics;

import io.parsa.engine.TrafficBound;
import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.Mix;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import java.io.IOException;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Per key j: the parts whose rows use it under the placed U (P_j) and under the random U (Q_j) (a USAGE record of
 * the key-usage dataset, or PAIR records), its server part
 * under the placed V (from the v-assignment) and under the random V (mix(seed ^ salt, j) mod k). Adds the key's
 * contribution to each part's figures, written as part stats at the end:
 * <ul>
 *   <li>{@code <p>.workingSet}[i] += 1 for i in P_j (M_i = |N(U_i)|)</li>
 *   <li>{@code <p>.serverKeys}[v] += 1 (|V_i|)</li>
 *   <li>{@code <p>.inner}[v] += 1 if v in P_j (|N(U_v) ∩ V_v|)</li>
 *   <li>{@code <p>.served}[v] += |P_j \ {v}| (sum_{l != v} |V_v ∩ N(U_l)|)</li>
 * </ul>
 * for p = placed and random (and variant: the random U with the V of Algorithm 2 run on it, values PART with
 * source 1, if {@link #WITH_VARIANT}); then T_i = (M_i - inner_i) + served_i.
 */
public class KeyMetricsReducer extends Reducer<LongWritable, JoinValue, NullWritable, NullWritable> {

  public static final String PLACED = "placed";
  public static final String RANDOM = "random";
  /** Random U with V by Algorithm 2 (values PART with source 1). */
  public static final String VARIANT = "variant";
  /** Whether the variant's v-assignment is among the inputs (boolean). */
  public static final String WITH_VARIANT = "parsa.metrics.variant";
  public static final String WORKING_SET = ".workingSet";
  public static final String SERVER_KEYS = ".serverKeys";
  public static final String INNER = ".inner";
  public static final String SERVED = ".served";
  /** Per part: keys used by that part alone (for the T_max lower bound). */
  public static final String BOUND_SINGLES = "bound.singles";
  /** 2^k entries (k ≤ TrafficBound.EXACT_MAX_K): Σ (p − 2) over keys used by exactly the mask's p ≥ 3 parts. */
  public static final String BOUND_MASK_WEIGHT = "bound.maskWeight";
  /** One entry: Σ (p − 2) over keys used by p ≥ 3 parts (any k). */
  public static final String BOUND_WEIGHT = "bound.weight";

  private final PartStats stats = new PartStats();
  private int k;
  private long seed;
  private boolean[] placedUse;
  private boolean[] randomUse;
  private int[] placedList;
  private int[] randomList;
  private long[][] placed;
  private long[][] random;
  private long[][] variant;
  private boolean withVariant;
  private long[] boundSingles;
  private long[] boundMaskWeight;
  private long[] boundWeight;

  @Override
  protected void setup(Context context) {
    k = MrKeys.k(context.getConfiguration());
    seed = MrKeys.seed(context.getConfiguration());
    placedUse = new boolean[k];
    randomUse = new boolean[k];
    placedList = new int[k];
    randomList = new int[k];
    placed = arrays(PLACED);
    random = arrays(RANDOM);
    withVariant = context.getConfiguration().getBoolean(WITH_VARIANT, false);
    boundSingles = stats.array(BOUND_SINGLES, k);
    boundWeight = stats.array(BOUND_WEIGHT, 1);
    boundMaskWeight = k <= TrafficBound.EXACT_MAX_K ? stats.array(BOUND_MASK_WEIGHT, 1 << k) : null;
    if (withVariant) {
      variant = arrays(VARIANT);
    }
  }

  private long[][] arrays(String p) {
    return new long[][] {stats.array(p + WORKING_SET, k), stats.array(p + SERVER_KEYS, k),
        stats.array(p + INNER, k), stats.array(p + SERVED, k)};
  }

  @Override
  protected void reduce(LongWritable key, Iterable<JoinValue> values, Context context)
      throws IOException, InterruptedException {
    // O(parts using the key), not O(k): the touched parts are listed and only they are reset
    int nPlaced = 0;
    int nRandom = 0;
    int vCount = 0;
    int vPart = -1;
    int variantCount = 0;
    int variantPart = -1;
    for (JoinValue v : values) {
      if (v.tag() == JoinValue.USAGE) {
        long[] p = v.longsArray();
        for (int t = 0, off = v.usageOffset(false); t < v.usageCount(false); t++) {
          int i = (int) p[off + t];
          if (!placedUse[i]) {
            placedUse[i] = true;
            placedList[nPlaced++] = i;
          }
        }
        for (int t = 0, off = v.usageOffset(true); t < v.usageCount(true); t++) {
          int i = (int) p[off + t];
          if (!randomUse[i]) {
            randomUse[i] = true;
            randomList[nRandom++] = i;
          }
        }
      } else if (v.tag() == JoinValue.PAIR) {
        if (!placedUse[v.a()]) {
          placedUse[v.a()] = true;
          placedList[nPlaced++] = v.a();
        }
        if (!randomUse[v.b()]) {
          randomUse[v.b()] = true;
          randomList[nRandom++] = v.b();
        }
      } else if (v.tag() == JoinValue.PART && v.b() == 0) {
        vCount++;
        vPart = v.a();
      } else if (v.tag() == JoinValue.PART && v.b() == 1) {
        variantCount++;
        variantPart = v.a();
      } else {
        throw new IllegalStateException("unexpected value for key " + key + ": " + v);
      }
    }
    try {
      if (contribute(key, nPlaced, nRandom, vCount, vPart, context) && withVariant) {
        if (variantCount != 1 || variantPart < 0 || variantPart >= k) {
          context.getCounter(MetricsTool.Counters.VARIANT_V_INVALID).increment(1);
        } else {
          add(variant, randomUse, randomList, nRandom, variantPart);
        }
      } else if (!withVariant && variantCount > 0) {
        context.getCounter(MetricsTool.Counters.VARIANT_V_INVALID).increment(1);
      }
    } finally {
      for (int t = 0; t < nPlaced; t++) {
        placedUse[placedList[t]] = false;
      }
      for (int t = 0; t < nRandom; t++) {
        randomUse[randomList[t]] = false;
      }
    }
  }

  /** Adds the placed and random contributions; false if the key is not counted (a contract violation). */
  private boolean contribute(LongWritable key, int nPlaced, int nRandom, int vCount, int vPart, Context context) {
    if (nPlaced == 0) {
      context.getCounter(MetricsTool.Counters.V_WITHOUT_USE).increment(1);
      return false;
    }
    context.getCounter(MetricsTool.Counters.KEYS).increment(1);
    if (vCount == 0) {
      context.getCounter(MetricsTool.Counters.KEYS_WITHOUT_V).increment(1);
      return false;
    }
    if (vCount > 1) {
      context.getCounter(MetricsTool.Counters.DUPLICATE_V).increment(vCount - 1);
      return false;
    }
    if (vPart < 0 || vPart >= k) {
      context.getCounter(MetricsTool.Counters.BAD_V_PART).increment(1);
      return false;
    }
    add(placed, placedUse, placedList, nPlaced, vPart);
    addToBound(nPlaced);
    add(random, randomUse, randomList, nRandom, Mix.randomKeyPart(seed, key.get(), k));
    return true;
  }

  /** The key's share of the T_max lower bound's inputs (its placed users are placedList[0..n)). */
  private void addToBound(int n) {
    if (n == 1) {
      boundSingles[placedList[0]]++;
    } else if (n >= 3) {
      boundWeight[0] += n - 2;
      if (boundMaskWeight != null) {
        int mask = 0;
        for (int t = 0; t < n; t++) {
          mask |= 1 << placedList[t];
        }
        boundMaskWeight[mask] += n - 2;
      }
    }
  }

  private static void add(long[][] a, boolean[] use, int[] list, int n, int server) {
    for (int t = 0; t < n; t++) {
      a[0][list[t]]++;
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
