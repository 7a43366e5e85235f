package io.parsa.jobs.testing;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.mapred.MiniMRClientCluster;
import org.apache.hadoop.mapred.MiniMRClientClusterFactory;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * One MiniDFSCluster plus one MapReduce-on-YARN mini cluster (a real NameNode, DataNode, ResourceManager and
 * NodeManager) per test JVM, started on first use and stopped at JVM exit, shared by every {@code *IT} of the
 * jobs module: starting them costs far more than any test.
 */
public final class SharedMiniCluster {

  private static SharedMiniCluster instance;

  private final MiniDFSCluster dfs;
  private final MiniMRClientCluster mr;
  private final Configuration conf;
  private final File site;

  private SharedMiniCluster() throws IOException {
    // A yarn-site.xml left by a killed earlier run would point every Configuration at a dead cluster.
    if (new File("target/test-classes/yarn-site.xml").delete()) {
      Configuration.reloadExistingConfigurations();
    }
    File base = new File("target/minicluster").getAbsoluteFile();
    FileUtil.fullyDelete(base);
    Configuration c = new Configuration();
    c.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(base, "dfs").getPath());
    c.setInt(YarnConfiguration.NM_LOG_RETAIN_SECONDS, 1);
    c.setInt("dfs.replication", 1);
    dfs = new MiniDFSCluster.Builder(c).numDataNodes(1).build();
    dfs.waitActive();
    c.set("fs.defaultFS", dfs.getFileSystem().getUri().toString());
    c.setInt(YarnConfiguration.NM_PMEM_MB, 8192);
    c.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    c.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    c.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    c.setInt("yarn.app.mapreduce.am.resource.mb", 512);
    c.setInt("mapreduce.map.memory.mb", 512);
    c.setInt("mapreduce.reduce.memory.mb", 512);
    c.setInt("mapreduce.task.io.sort.mb", 32);
    // Every job of a multi-job step waited for the previous job's application master to exit (about 4 s after its
    // client saw the end): the capacity scheduler's default lets AMs take a tenth of the node, one AM here.
    c.setFloat("yarn.scheduler.capacity.maximum-am-resource-percent", 0.5f);
    // A task container took two one-second heartbeats to reach its AM (allocated on the node's, acquired on the AM's).
    c.setInt("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", 200);
    c.setInt("yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms", 200);
    // Short-lived JVMs on a small machine: the client compiler alone starts them faster (the test data is tiny).
    String quickJvm = " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC";
    c.set("yarn.app.mapreduce.am.command-opts", "-Xmx384m" + quickJvm);
    c.set("mapreduce.map.java.opts", "-Xmx384m" + quickJvm);
    c.set("mapreduce.reduce.java.opts", "-Xmx384m" + quickJvm);
    mr = MiniMRClientClusterFactory.create(SharedMiniCluster.class, 1, c);
    conf = new Configuration(mr.getConfig());
    // A YARN application master started in the mini cluster finds the ResourceManager only through a
    // yarn-site.xml on its classpath (as Hadoop's own distributedshell tests do).
    // Only the ResourceManager keys: once YarnConfiguration is loaded, yarn-site.xml is a default resource of
    // every Configuration in this JVM, and the rest of the cluster's settings must not leak into other tests.
    Configuration rm = new Configuration(false);
    for (Map.Entry<String, String> e : conf) {
      if (e.getKey().startsWith("yarn.resourcemanager.")) {
        rm.set(e.getKey(), e.getValue());
      }
    }
    site = new File("target/test-classes/yarn-site.xml").getAbsoluteFile();
    try (OutputStream out = new FileOutputStream(site)) {
      rm.writeXml(out);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "minicluster-stop"));
  }

  /** The shared cluster, started on first call. */
  public static synchronized SharedMiniCluster get() throws IOException {
    if (instance == null) {
      instance = new SharedMiniCluster();
    }
    return instance;
  }

  /** A copy of the cluster's configuration (fs.defaultFS = the mini HDFS, MapReduce on the mini YARN). */
  public Configuration conf() {
    return new Configuration(conf);
  }

  public MiniDFSCluster dfs() {
    return dfs;
  }

  private void stop() {
    try {
      mr.stop();
    } catch (Exception ignored) {
      // JVM is exiting
    }
    dfs.shutdown();
    site.delete();
  }
}
