package io.parsa.yarn;

import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;

/**
 * One MiniDFSCluster + MiniYARNCluster per test JVM, started lazily by the first IT that needs it and stopped
 * at JVM exit. The cluster's configuration is written to {@code target/test-classes/yarn-site.xml} so that an
 * application master (whose classpath is this JVM's) finds the ResourceManager.
 */
final class MiniClusters {
  private static MiniClusters instance;

  final MiniDFSCluster dfs;
  final MiniYARNCluster yarn;
  final Configuration conf;
  private final File siteFile;

  private MiniClusters() throws Exception {
    YarnConfiguration c = new YarnConfiguration();
    c.setInt(YarnConfiguration.NM_LOG_RETAIN_SECONDS, 1);
    c.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 64);
    c.setInt(YarnConfiguration.NM_PMEM_MB, 8192);
    c.setInt(YarnConfiguration.NM_VCORES, 16);
    c.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    c.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    c.setFloat(YarnConfiguration.NM_MAX_PER_DISK_UTILIZATION_PERCENTAGE, 99.9f);
    c.set("dfs.replication", "1");
    File base = new File("target/mini-clusters").getAbsoluteFile();
    c.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(base, "dfs").getPath());
    dfs = new MiniDFSCluster.Builder(c).numDataNodes(1).format(true).build();
    dfs.waitActive();
    c.set("fs.defaultFS", dfs.getFileSystem().getUri().toString());
    yarn = new MiniYARNCluster("parsa-it", 1, 1, 1);
    yarn.init(c);
    yarn.start();
    conf = new Configuration(yarn.getConfig());
    conf.set("fs.defaultFS", dfs.getFileSystem().getUri().toString());
    // The RM address is only final after start(); publish the whole configuration for the AM's classpath.
    File testClasses = new File(MiniClusters.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    siteFile = new File(testClasses, "yarn-site.xml");
    try (OutputStream out = new FileOutputStream(siteFile)) {
      conf.writeXml(out);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "mini-clusters-stop"));
  }

  static synchronized MiniClusters get() throws Exception {
    if (instance == null) {
      instance = new MiniClusters();
    }
    return instance;
  }

  private void stop() {
    try {
      yarn.stop();
    } catch (RuntimeException e) {
      // best effort at JVM exit
    }
    dfs.shutdown();
    siteFile.delete();
  }
}
