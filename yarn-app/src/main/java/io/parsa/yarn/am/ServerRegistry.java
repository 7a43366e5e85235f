package io.parsa.yarn.am;

import java.util.Arrays;
import java.util.List;

/** Where each neighbor-set server listens; owned by the master, bumped to a new epoch on every change. */
public final class ServerRegistry {
  private final String[] addresses;
  private long epoch;

  public ServerRegistry(int servers) {
    addresses = new String[servers];
    Arrays.fill(addresses, "");
  }

  public synchronized void register(int serverId, String hostPort) {
    checkId(serverId);
    addresses[serverId] = hostPort;
    epoch++;
    notifyAll();
  }

  /** Marks a server as gone (its container died); clients wait until it re-registers. */
  public synchronized void markDown(int serverId) {
    checkId(serverId);
    addresses[serverId] = "";
    epoch++;
  }

  public synchronized long epoch() {
    return epoch;
  }

  public synchronized List<String> addresses() {
    return List.of(addresses.clone());
  }

  public synchronized String address(int serverId) {
    return addresses[serverId];
  }

  public synchronized boolean allUp() {
    for (String a : addresses) {
      if (a.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /** Waits until every server is registered; false on timeout. */
  public synchronized boolean awaitAllUp(long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!allUp()) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) {
        return false;
      }
      wait(Math.min(left, 500));
    }
    return true;
  }

  public int size() {
    return addresses.length;
  }

  private void checkId(int serverId) {
    if (serverId < 0 || serverId >= addresses.length) {
      throw new IllegalArgumentException("server id " + serverId + " outside [0, " + addresses.length + ")");
    }
  }
}
