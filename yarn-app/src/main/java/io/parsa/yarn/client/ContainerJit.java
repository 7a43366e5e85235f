package io.parsa.yarn.client;

import io.parsa.common.UsageException;
import io.parsa.yarn.ParsaYarnConfig;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * Which just-in-time compilers partition-u's worker and server containers run, from the size of its blocks: the
 * rule bin/jit.sh applies to the local JVM, for a cluster. A short run on small blocks is over before C2's
 * compilations pay off, and on two cores they compete with the work (news20 through YARN on the pseudo-cluster: from
 * "scheduler serving" to "committed" 15 / 17 s with C1 alone against 22 / 20 s tiered, docs/benchmarks-yarn.md);
 * large blocks keep both tiers, where C2's code wins. {@value #KEY}: {@code auto} (default) runs C1 alone when the
 * blocks hold at most three times {@value #C1_MAX_MB_KEY} MiB (default {@value #DEFAULT_C1_MAX_MB}, as
 * PARSA_C1_MAX_MB locally: a block file takes about three times its text input), {@code c1} always, {@code tiered}
 * never. Options the user put in {@link ParsaYarnConfig#CONTAINER_JAVA_OPTS} that choose the compilers themselves win.
 */
public final class ContainerJit {
  public static final String KEY = "parsa.container.jit";
  public static final String C1_MAX_MB_KEY = "parsa.container.c1.max.mb";
  public static final int DEFAULT_C1_MAX_MB = 6;
  static final String C1_ONLY = "-XX:TieredStopAtLevel=1";

  private ContainerJit() {
  }

  /**
   * The containers' JVM options for blocks of {@code blockBytes} bytes (−1: unknown, then tiered under auto): the
   * configured {@link ParsaYarnConfig#CONTAINER_JAVA_OPTS} (or its default), with {@link #C1_ONLY} added where the
   * rule says so and the options do not already choose the compilers.
   */
  public static String javaOpts(Configuration conf, long blockBytes) {
    String opts = configured(conf);
    return c1(conf, blockBytes) && !choosesCompilers(opts) ? (opts + " " + C1_ONLY).trim() : opts;
  }

  /**
   * Sets {@link ParsaYarnConfig#CONTAINER_JAVA_OPTS} in {@code conf} to {@link #javaOpts} for blocks of
   * {@code blockBytes} bytes; returns whether that added {@link #C1_ONLY}.
   */
  public static boolean apply(Configuration conf, long blockBytes) {
    String configured = configured(conf);
    String opts = javaOpts(conf, blockBytes);
    conf.set(ParsaYarnConfig.CONTAINER_JAVA_OPTS, opts);
    return !opts.equals(configured);
  }

  /** The containers' options as configured (or their default). */
  private static String configured(Configuration conf) {
    return conf.get(ParsaYarnConfig.CONTAINER_JAVA_OPTS, ParsaYarnConfig.DEFAULT_CONTAINER_JAVA_OPTS).trim();
  }

  /** Whether the rule runs C1 alone for blocks of {@code blockBytes} bytes; a usage error names a bad setting. */
  static boolean c1(Configuration conf, long blockBytes) {
    String mode = conf.get(KEY, "auto").trim().toLowerCase(Locale.ROOT);
    switch (mode) {
      case "c1":
        return true;
      case "tiered":
        return false;
      case "auto":
        long maxMb = conf.getLong(C1_MAX_MB_KEY, DEFAULT_C1_MAX_MB);
        if (maxMb < 0) {
          throw new UsageException(C1_MAX_MB_KEY + " must be >= 0, got " + maxMb);
        }
        return blockBytes >= 0 && blockBytes / 3 <= maxMb * 1024 * 1024;
      default:
        throw new UsageException(KEY + " must be auto, c1 or tiered, got '" + conf.get(KEY) + "'");
    }
  }

  /** Whether JVM options already pick the compilers (a tier limit, tiered compilation on or off, -Xint, -Xcomp). */
  static boolean choosesCompilers(String opts) {
    return opts.contains("TieredStopAtLevel") || opts.contains("TieredCompilation") || opts.contains("-Xint")
        || opts.contains("-Xcomp");
  }
}
