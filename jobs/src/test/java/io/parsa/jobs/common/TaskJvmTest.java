package io.parsa.jobs.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.jobs.mr.Jobs;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.Job;
import org.junit.jupiter.api.Test;

class TaskJvmTest {

  private static Configuration cluster() {
    Configuration conf = new Configuration(false);
    conf.set(LocalJobs.FRAMEWORK, "yarn");
    return conf;
  }

  @Test
  void clusterTasksGetTheParallelCollectorAndKeepTheirHeapRule() {
    Configuration conf = cluster();
    conf.setInt("mapreduce.reduce.memory.mb", 512);
    TaskJvm.applyDefaults(conf);
    assertEquals("-XX:+UseParallelGC", conf.get("mapreduce.map.java.opts"));
    assertEquals("-XX:+UseParallelGC", conf.get("mapreduce.reduce.java.opts"));
    // no -Xmx was added: Hadoop still derives the heap from the container, and so do the steps' estimates
    assertEquals((long) (512 * 0.8) << 20, Jobs.reducerHeapBytes(conf));
    // applied twice (a job built from a step's configuration), the flag is not repeated
    TaskJvm.applyDefaults(conf);
    assertEquals("-XX:+UseParallelGC", conf.get("mapreduce.reduce.java.opts"));
  }

  @Test
  void theUsersOptionsAreKeptAndAGcTheyChoseWins() {
    Configuration conf = cluster();
    conf.set("mapreduce.reduce.java.opts", "-Xmx2g -XX:+ExitOnOutOfMemoryError ");
    conf.set("mapreduce.map.java.opts", "-Xmx1g -XX:+UseG1GC");
    TaskJvm.applyDefaults(conf);
    assertEquals("-Xmx2g -XX:+ExitOnOutOfMemoryError -XX:+UseParallelGC", conf.get("mapreduce.reduce.java.opts"));
    assertEquals("-Xmx1g -XX:+UseG1GC", conf.get("mapreduce.map.java.opts"));
    assertEquals(2L << 30, Jobs.reducerHeapBytes(conf));
  }

  @Test
  void theGenericChildOptionsAreResolvedAsHadoopDoesAndAnAdminCollectorIsNotContradicted() {
    Configuration conf = cluster();
    conf.set("mapred.child.java.opts", "-Xmx700m");
    conf.set("mapreduce.admin.map.child.java.opts", "-Djava.net.preferIPv4Stack=true -XX:+UseZGC");
    TaskJvm.applyDefaults(conf);
    assertNull(conf.get("mapreduce.map.java.opts"));
    assertEquals("-Xmx700m -XX:+UseParallelGC", conf.get("mapreduce.reduce.java.opts"));
  }

  @Test
  void theLocalRunnerIsNotTouched() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set(LocalJobs.FRAMEWORK, "local");
    TaskJvm.applyDefaults(conf);
    assertNull(conf.get("mapreduce.reduce.java.opts"));
    Configuration onCluster = cluster();
    Job job = Jobs.newJob(onCluster, "test", "a job", TaskJvmTest.class);
    assertEquals("-XX:+UseParallelGC", job.getConfiguration().get("mapreduce.reduce.java.opts"));
  }

  /**
   * The heap a task decides by (its slices, whether its data fit) is the JVM's configured one (-Xmx), which stays
   * put, not the collector's {@code maxMemory}, which the parallel collector moves as it resizes its survivor space.
   */
  @Test
  void theHeapATaskDecidesByIsTheConfiguredOne() {
    long configured = TaskJvm.configuredHeap();
    assertTrue(configured >= Runtime.getRuntime().maxMemory(), configured + " below the heap in use");
    for (String arg : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.equals("-Xmx3g")) { // the build's surefire.argLine
        assertEquals(3L << 30, configured);
      }
    }
  }
}
