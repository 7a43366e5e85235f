package io.parsa.yarn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.common.UsageException;
import io.parsa.yarn.ParsaYarnConfig;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class ContainerJitTest {
  private static final long MIB = 1024 * 1024;

  private static Configuration conf(String... kv) {
    Configuration c = new Configuration(false);
    for (int i = 0; i < kv.length; i += 2) {
      c.set(kv[i], kv[i + 1]);
    }
    return c;
  }

  /** auto: C1 alone up to three times the input limit in block bytes (18 MiB by default), both tiers above. */
  @Test
  void autoRunsC1AloneOnSmallBlocksAndBothTiersOnLargeOnes() {
    String base = ParsaYarnConfig.DEFAULT_CONTAINER_JAVA_OPTS;
    assertEquals(base + " -XX:TieredStopAtLevel=1", ContainerJit.javaOpts(conf(), 5 * MIB));
    assertEquals(base + " -XX:TieredStopAtLevel=1", ContainerJit.javaOpts(conf(), 18 * MIB));
    assertEquals(base, ContainerJit.javaOpts(conf(), 18 * MIB + 3));
    assertEquals(base, ContainerJit.javaOpts(conf(), 300 * MIB));
    assertEquals(base, ContainerJit.javaOpts(conf(), -1), "unknown size: both tiers");
    assertEquals(base, ContainerJit.javaOpts(conf(ContainerJit.C1_MAX_MB_KEY, "1"), 5 * MIB));
    assertEquals(base + " -XX:TieredStopAtLevel=1",
        ContainerJit.javaOpts(conf(ContainerJit.C1_MAX_MB_KEY, "100"), 300 * MIB));
  }

  /** c1 and tiered override the size; the user's own compiler options win over the rule; other options are kept. */
  @Test
  void explicitSettingsWin() {
    String base = ParsaYarnConfig.DEFAULT_CONTAINER_JAVA_OPTS;
    assertEquals(base + " -XX:TieredStopAtLevel=1", ContainerJit.javaOpts(conf(ContainerJit.KEY, "c1"), 900 * MIB));
    assertEquals(base, ContainerJit.javaOpts(conf(ContainerJit.KEY, "TIERED"), MIB));
    assertEquals("-XX:+UseG1GC -XX:TieredStopAtLevel=1",
        ContainerJit.javaOpts(conf(ParsaYarnConfig.CONTAINER_JAVA_OPTS, " -XX:+UseG1GC "), MIB));
    for (String own : new String[] {"-XX:TieredStopAtLevel=4", "-XX:-TieredCompilation", "-Xint"}) {
      assertEquals(own, ContainerJit.javaOpts(conf(ParsaYarnConfig.CONTAINER_JAVA_OPTS, own), MIB), own);
    }
    assertEquals("-XX:TieredStopAtLevel=1", ContainerJit.javaOpts(conf(ParsaYarnConfig.CONTAINER_JAVA_OPTS, "",
        ContainerJit.KEY, "c1"), 900 * MIB));
  }

  /** apply sets the containers' options in the configuration and says whether it added C1 alone. */
  @Test
  void applySetsTheOptionsAndSaysWhetherItAddedC1() {
    Configuration small = conf();
    assertTrue(ContainerJit.apply(small, 5 * MIB));
    assertEquals(ParsaYarnConfig.DEFAULT_CONTAINER_JAVA_OPTS + " -XX:TieredStopAtLevel=1",
        small.get(ParsaYarnConfig.CONTAINER_JAVA_OPTS));
    Configuration large = conf();
    assertFalse(ContainerJit.apply(large, 300 * MIB));
    assertEquals(ParsaYarnConfig.DEFAULT_CONTAINER_JAVA_OPTS, large.get(ParsaYarnConfig.CONTAINER_JAVA_OPTS));
    Configuration own = conf(ParsaYarnConfig.CONTAINER_JAVA_OPTS, "-XX:-TieredCompilation");
    assertFalse(ContainerJit.apply(own, MIB));
    assertEquals("-XX:-TieredCompilation", own.get(ParsaYarnConfig.CONTAINER_JAVA_OPTS));
  }

  /** A bad setting is a usage error naming the key and the value. */
  @Test
  void badSettingsAreUsageErrors() {
    UsageException e = assertThrows(UsageException.class,
        () -> ContainerJit.javaOpts(conf(ContainerJit.KEY, "fast"), MIB));
    assertTrue(e.getMessage().contains("parsa.container.jit") && e.getMessage().contains("'fast'"), e.getMessage());
    e = assertThrows(UsageException.class, () -> ContainerJit.javaOpts(conf(ContainerJit.C1_MAX_MB_KEY, "-2"), MIB));
    assertTrue(e.getMessage().contains("parsa.container.c1.max.mb"), e.getMessage());
  }
}
