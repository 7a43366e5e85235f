package io.parsa.yarn.client;

/** Test access to package-private helpers of {@link PartitionUTool}. */
public final class PartitionUToolAccess {
  private PartitionUToolAccess() {}

  public static boolean clusterConfigured(org.apache.hadoop.conf.Configuration c) {
    return PartitionUTool.clusterConfigured(c);
  }
}
