package io.parsa.yarn.rpc;

import io.parsa.avro.rpc.Gate;
import io.parsa.avro.rpc.GateAnswer;
import io.parsa.avro.rpc.GateRequest;
import io.parsa.avro.rpc.JobRequest;
import io.parsa.avro.rpc.ReserveRequest;
import io.parsa.avro.rpc.SchedulerProtocol;
import io.parsa.avro.rpc.SchedulerRejected;
import io.parsa.avro.rpc.ServerList;
import io.parsa.avro.rpc.ServerListRequest;
import io.parsa.avro.rpc.ServerRegistration;
import io.parsa.avro.rpc.Task;
import io.parsa.avro.rpc.TaskReport;
import io.parsa.avro.rpc.TaskRequest;
import java.io.IOException;

/**
 * A container's connection to the master's scheduler: adds the secret and the caller's id to every request and
 * reconnects on transport errors until {@code retryMs} has passed. A rejection by the master is final.
 */
public final class SchedulerClient implements AutoCloseable {
  private final String address;
  private final String secret;
  private final int callerId;
  private final int connectTimeoutMs;
  private final long retryMs;
  private Rpc.Client<SchedulerProtocol> client;

  private final String token;

  /** A worker's client (requests carry worker {@code callerId}'s token). */
  public SchedulerClient(String address, String secret, int callerId, int connectTimeoutMs, long retryMs) {
    this(address, secret, Tokens.Role.WORKER, callerId, connectTimeoutMs, retryMs);
  }

  /** A client acting as {@code role}/{@code callerId}; its requests carry that identity's token. */
  public SchedulerClient(String address, String secret, Tokens.Role role, int callerId, int connectTimeoutMs,
      long retryMs) {
    this.address = address;
    this.secret = secret;
    this.token = Tokens.derive(secret, role, callerId);
    this.callerId = callerId;
    this.connectTimeoutMs = connectTimeoutMs;
    this.retryMs = retryMs;
  }

  @FunctionalInterface
  private interface Call<T> {
    T apply(SchedulerProtocol p) throws SchedulerRejected;
  }

  private synchronized <T> T call(String what, Call<T> call) throws IOException {
    long deadline = System.currentTimeMillis() + retryMs;
    IOException last = null;
    int attempt = 0;
    while (true) {
      try {
        if (client == null) {
          client = Rpc.connect(SchedulerProtocol.class, address, connectTimeoutMs, RpcSecurity.forSecret(secret));
        }
        return call.apply(client.proxy());
      } catch (SchedulerRejected e) {
        throw new IOException("master rejected " + what + ": " + e.getReason(), e);
      } catch (IOException | RuntimeException e) {
        last = e instanceof IOException ? (IOException) e : new IOException(e.toString(), e);
        if (client != null) {
          client.close();
          client = null;
        }
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("master at " + address + " unreachable for " + what + " after " + retryMs + " ms",
            last);
      }
      Sleeper.backoff(attempt++);
    }
  }

  public String job() throws IOException {
    return call("job", p -> p.job(new JobRequest(token, callerId)));
  }

  public Task nextTask() throws IOException {
    return call("nextTask", p -> p.nextTask(new TaskRequest(token, callerId)));
  }

  public double[] reserve(long taskId, long rows, double weight) throws IOException {
    return Longs.toDoubleArray(call("reserve",
        p -> p.reserve(new ReserveRequest(token, callerId, taskId, rows, weight)).getLoads()));
  }

  /** Whether the task may pass {@code gate} now (see {@code BlockScheduler.gate}). */
  public GateAnswer passGate(long taskId, Gate gate) throws IOException {
    return call("passGate", p -> p.passGate(new GateRequest(token, callerId, taskId, gate)));
  }

  public boolean taskDone(long taskId, long rows, long edges, double[] partLoads, long[] partRows, long millis)
      throws IOException {
    return call("taskDone", p -> p.taskDone(new TaskReport(token, callerId, taskId, rows, edges,
        Longs.wrap(partLoads), millis, Longs.wrap(partRows))));
  }

  public void registerServer(String host, int port) throws IOException {
    call("registerServer", p -> p.registerServer(new ServerRegistration(token, callerId, host, port)));
  }

  public ServerList servers() throws IOException {
    return call("servers", p -> p.servers(new ServerListRequest(token, callerId)));
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      client.close();
      client = null;
    }
  }
}
