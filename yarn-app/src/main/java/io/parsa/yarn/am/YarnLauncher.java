package io.parsa.yarn.am;

import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.server.ServerMain;
import io.parsa.yarn.worker.WorkerMain;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.UpdatedContainer;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.async.AMRMClientAsync;
import org.apache.hadoop.yarn.client.api.async.NMClientAsync;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's YARN side: asks the ResourceManager for server and worker containers (told apart by priority),
 * launches each allocated container with the next pending explicit id, and turns container exits into
 * {@link PartitionMaster} events using the three-way exit classification (0 = done; aborted, preempted, lost
 * node = not counted; anything else = a failure).
 */
public final class YarnLauncher implements PartitionMaster.Launcher {
  private static final Logger LOG = LoggerFactory.getLogger(YarnLauncher.class);
  static final Priority SERVER_PRIORITY = Priority.newInstance(1);
  static final Priority WORKER_PRIORITY = Priority.newInstance(2);

  /** A launched container's role and explicit id. */
  private static final class Role {
    final boolean server;
    final int id;

    Role(boolean server, int id) {
      this.server = server;
      this.id = id;
    }

    @Override
    public String toString() {
      return (server ? "server " : "worker ") + id;
    }
  }

  private final Configuration conf;
  private final ContainerEvents master;
  private final String serverMain;
  private final String workerMain;
  private final String masterAddress;
  private final String secret;
  private final String host;
  private final Resource serverResource;
  private final Resource workerResource;
  private final Deque<Integer> pendingServers = new ArrayDeque<>();
  private final Deque<Integer> pendingWorkers = new ArrayDeque<>();
  private final Map<ContainerId, Role> roles = new HashMap<>();
  private final Map<ContainerId, Container> containers = new HashMap<>();
  private AMRMClientAsync<ContainerRequest> amrm;
  private NMClientAsync nm;

  /** partition-u's launcher: neighbor-set servers and partitioning workers. */
  public YarnLauncher(Configuration conf, PartitionMaster master, String masterAddress, String secret, String host) {
    this(conf, master, ServerMain.class.getName(), WorkerMain.class.getName(), masterAddress, secret, host);
  }

  /**
   * A launcher of {@code serverMain} and {@code workerMain} containers (each run as {@code main --master address
   * --id N}) sized by the job's server and worker memory settings.
   */
  public YarnLauncher(Configuration conf, ContainerEvents master, String serverMain, String workerMain, String masterAddress,
      String secret, String host) {
    this.conf = conf;
    this.master = master;
    this.serverMain = serverMain;
    this.workerMain = workerMain;
    this.masterAddress = masterAddress;
    this.secret = secret;
    this.host = host;
    this.serverResource = Resource.newInstance(ParsaYarnConfig.serverMemoryMb(conf),
        conf.getInt(ParsaYarnConfig.SERVER_VCORES, ParsaYarnConfig.DEFAULT_SERVER_VCORES));
    this.workerResource = Resource.newInstance(ParsaYarnConfig.workerMemoryMb(conf),
        conf.getInt(ParsaYarnConfig.WORKER_VCORES, ParsaYarnConfig.DEFAULT_WORKER_VCORES));
  }

  /** Registers with the ResourceManager. */
  public void start() throws IOException, YarnException {
    amrm = AMRMClientAsync.createAMRMClientAsync(1000, new RmHandler());
    amrm.init(conf);
    amrm.start();
    nm = NMClientAsync.createNMClientAsync(new NmHandler());
    nm.init(conf);
    nm.start();
    // No tracking URL of our own: the master serves no web page, and a made-up one would be a dead link. The
    // ResourceManager then hands clients its proxy link for the application, which leads to the application's RM
    // page (state, progress from RmHandler.getProgress, diagnostics, container logs).
    amrm.registerApplicationMaster(host, 0, "");
    LOG.info("registered with the ResourceManager");
  }

  /** Reports the final status and stops the clients. */
  public void unregister(FinalApplicationStatus status, String diagnostics) {
    try {
      amrm.unregisterApplicationMaster(status, diagnostics, null);
      LOG.info("unregistered: {} ({})", status, diagnostics);
    } catch (IOException | YarnException e) {
      LOG.error("could not unregister", e);
    }
    nm.stop();
    amrm.stop();
  }

  @Override
  public synchronized void launchServer(int serverId) {
    pendingServers.add(serverId);
    amrm.addContainerRequest(new ContainerRequest(serverResource, null, null, SERVER_PRIORITY));
  }

  @Override
  public synchronized void launchWorker(int workerId) {
    pendingWorkers.add(workerId);
    amrm.addContainerRequest(new ContainerRequest(workerResource, null, null, WORKER_PRIORITY));
  }

  @Override
  public void stopAll() {
    // Unregistering makes the ResourceManager stop every remaining container of the application.
  }

  private synchronized void allocated(Container c) {
    boolean server = c.getPriority().equals(SERVER_PRIORITY);
    Deque<Integer> pending = server ? pendingServers : pendingWorkers;
    Resource want = server ? serverResource : workerResource;
    List<? extends java.util.Collection<ContainerRequest>> matching =
        amrm.getMatchingRequests(c.getPriority(), "*", c.getResource());
    if (!matching.isEmpty() && !matching.get(0).isEmpty()) {
      amrm.removeContainerRequest(matching.get(0).iterator().next());
    } else {
      List<? extends java.util.Collection<ContainerRequest>> any =
          amrm.getMatchingRequests(c.getPriority(), "*", want);
      if (!any.isEmpty() && !any.get(0).isEmpty()) {
        amrm.removeContainerRequest(any.get(0).iterator().next());
      }
    }
    Integer id = pending.poll();
    if (id == null) {
      LOG.info("releasing surplus container {}", c.getId());
      amrm.releaseAssignedContainer(c.getId());
      return;
    }
    Role role = new Role(server, id);
    roles.put(c.getId(), role);
    containers.put(c.getId(), c);
    try {
      int mem = server ? ParsaYarnConfig.serverMemoryMb(conf) : ParsaYarnConfig.workerMemoryMb(conf);
      String main = server ? serverMain : workerMain;
      ContainerLaunchContext clc = YarnContainers.launchContext(conf, main,
          List.of("--master", masterAddress, "--id", Integer.toString(id)), ParsaYarnConfig.heapMb(conf, mem),
          secret);
      LOG.info("launching {} in container {} on {}", role, c.getId(), c.getNodeId());
      nm.startContainerAsync(c, clc);
    } catch (IOException e) {
      LOG.error("could not build the launch context of {}", role, e);
      roles.remove(c.getId());
      amrm.releaseAssignedContainer(c.getId());
      exited(role, PartitionMaster.Exit.FAILED, e.toString());
    }
  }

  private synchronized Role roleOf(ContainerId id, boolean remove) {
    if (remove) {
      containers.remove(id);
      return roles.remove(id);
    }
    return roles.get(id);
  }

  /** Stops the container of a server the master declared stuck; its completion is not reported. */
  @Override
  public synchronized void killServer(int serverId) {
    for (Map.Entry<ContainerId, Role> e : roles.entrySet()) {
      Role r = e.getValue();
      if (r.server && r.id == serverId) {
        Container c = containers.remove(e.getKey());
        roles.remove(e.getKey());
        LOG.warn("stopping container {} of hung server {}", c.getId(), serverId);
        nm.stopContainerAsync(c.getId(), c.getNodeId());
        return;
      }
    }
  }

  /** Stops the container of a worker the master declared stuck (its completion is then ignored). */
  @Override
  public synchronized void killWorker(int workerId) {
    for (Map.Entry<ContainerId, Role> e : roles.entrySet()) {
      Role r = e.getValue();
      Container c = containers.get(e.getKey());
      if (!r.server && r.id == workerId && c != null) {
        LOG.warn("stopping container {} of hung worker {}", c.getId(), workerId);
        nm.stopContainerAsync(c.getId(), c.getNodeId());
        return;
      }
    }
    // not started yet (or already gone): drop a pending launch of that id
    pendingWorkers.remove(workerId);
  }

  private void exited(Role role, PartitionMaster.Exit exit, String diag) {
    if (role.server) {
      master.serverExited(role.id, exit, diag);
    } else {
      master.workerExited(role.id, exit, diag);
    }
  }

  /** Three-way classification of a container's exit status. */
  static PartitionMaster.Exit classify(int exitStatus) {
    if (exitStatus == ContainerExitStatus.SUCCESS) {
      return PartitionMaster.Exit.SUCCESS;
    }
    switch (exitStatus) {
      case ContainerExitStatus.ABORTED:
      case ContainerExitStatus.PREEMPTED:
      case ContainerExitStatus.DISKS_FAILED:
      case ContainerExitStatus.KILLED_BY_RESOURCEMANAGER:
      case ContainerExitStatus.KILLED_AFTER_APP_COMPLETION:
      case ContainerExitStatus.KILLED_BY_CONTAINER_SCHEDULER:
        return PartitionMaster.Exit.NOT_COUNTED;
      default:
        return PartitionMaster.Exit.FAILED;
    }
  }

  private final class RmHandler extends AMRMClientAsync.AbstractCallbackHandler {
    @Override
    public void onContainersAllocated(List<Container> containers) {
      for (Container c : containers) {
        allocated(c);
      }
    }

    @Override
    public void onContainersCompleted(List<ContainerStatus> statuses) {
      for (ContainerStatus s : statuses) {
        Role role = roleOf(s.getContainerId(), true);
        if (role == null) {
          continue;
        }
        PartitionMaster.Exit exit = classify(s.getExitStatus());
        LOG.info("{} (container {}) ended with status {} ({})", role, s.getContainerId(), s.getExitStatus(), exit);
        exited(role, exit, "container " + s.getContainerId() + " exit status " + s.getExitStatus() + ": "
            + s.getDiagnostics());
      }
    }

    @Override
    public void onContainersUpdated(List<UpdatedContainer> containers) {}

    @Override
    public void onShutdownRequest() {
      master.abort("the ResourceManager asked the master to shut down");
    }

    @Override
    public void onNodesUpdated(List<NodeReport> updatedNodes) {}

    @Override
    public float getProgress() {
      return master.progressFraction();
    }

    @Override
    public void onError(Throwable e) {
      master.abort("ResourceManager client error: " + e);
    }
  }

  private final class NmHandler extends NMClientAsync.AbstractCallbackHandler {
    @Override
    public void onContainerStarted(ContainerId containerId, Map<String, ByteBuffer> allServiceResponse) {
      LOG.debug("container {} started", containerId);
    }

    @Override
    public void onContainerStatusReceived(ContainerId containerId, ContainerStatus containerStatus) {}

    @Override
    public void onContainerStopped(ContainerId containerId) {}

    @Override
    public void onStartContainerError(ContainerId containerId, Throwable t) {
      Role role = roleOf(containerId, true);
      if (role != null) {
        LOG.error("could not start {} in {}", role, containerId, t);
        amrm.releaseAssignedContainer(containerId);
        exited(role, PartitionMaster.Exit.FAILED, "start failed: " + t);
      }
    }

    @Override
    public void onContainerResourceIncreased(ContainerId containerId, Resource resource) {}

    @Override
    public void onContainerResourceUpdated(ContainerId containerId, Resource resource) {}

    @Override
    public void onGetContainerStatusError(ContainerId containerId, Throwable t) {}

    @Override
    public void onIncreaseContainerResourceError(ContainerId containerId, Throwable t) {}

    @Override
    public void onUpdateContainerResourceError(ContainerId containerId, Throwable t) {}

    @Override
    public void onStopContainerError(ContainerId containerId, Throwable t) {}
  }
}
