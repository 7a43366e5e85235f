package io.parsa.yarn.am;

/**
 * What {@link YarnLauncher} tells the master it works for: container exits, the ResourceManager's requests to stop,
 * and the progress it reports in its heartbeats.
 */
public interface ContainerEvents {
  void serverExited(int serverId, PartitionMaster.Exit exit, String diagnostics);

  void workerExited(int workerId, PartitionMaster.Exit exit, String diagnostics);

  void abort(String why);

  float progressFraction();
}
