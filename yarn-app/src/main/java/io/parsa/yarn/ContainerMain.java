package io.parsa.yarn;

import io.parsa.yarn.rpc.SchedulerClient;
import io.parsa.yarn.rpc.Secrets;
import io.parsa.yarn.rpc.Tokens;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the worker and server container mains share: their command line ({@code --master host:port --id N}), the
 * secret from the container's credentials, the job spec fetched from the master, and turning the outcome into the
 * process exit code.
 */
public final class ContainerMain {

  /** The body of a container main, given its explicit id, master address, secret and job. */
  @FunctionalInterface
  public interface Body {
    void run(int id, String master, String secret, JobSpec job) throws Exception;
  }

  private static final Logger LOG = LoggerFactory.getLogger(ContainerMain.class);

  private ContainerMain() {}

  /** A process main's body, returning its exit code. */
  @FunctionalInterface
  public interface Main {
    int run() throws Exception;
  }

  /** Runs {@code body} and exits the JVM with its code, or with 1 after logging what {@code what} failed with. */
  public static void exitWith(String what, Main body) {
    int rc;
    try {
      rc = body.run();
    } catch (Throwable t) {
      LOG.error("{} failed", what, t);
      rc = 1;
    }
    System.exit(rc);
  }

  /** A container's command line: {@code --master host:port --id N}. */
  public static final class Args {
    public final String master;
    public final int id;

    private Args(String master, int id) {
      this.master = master;
      this.id = id;
    }

    /** The parsed command line, or null after printing the usage of a {@code role} container. */
    public static Args parse(String role, String[] args) {
      String master = null;
      int id = -1;
      for (int i = 0; i + 1 < args.length; i += 2) {
        if (args[i].equals("--master")) {
          master = args[i + 1];
        } else if (args[i].equals("--id")) {
          id = Integer.parseInt(args[i + 1]);
        }
      }
      if (master == null || id < 0) {
        System.err.println("usage: " + role + " container --master host:port --id N");
        return null;
      }
      return new Args(master, id);
    }
  }

  /** Runs {@code body} for a container of {@code role} and exits the JVM with 0, 1 (failure) or 2 (usage). */
  public static void main(String role, String[] args, Body body) {
    exitWith(role, () -> run(role, args, body));
  }

  static int run(String role, String[] args, Body body) throws Exception {
    Args a = Args.parse(role, args);
    if (a == null) {
      return 2;
    }
    String master = a.master;
    int id = a.id;
    String secret = Secrets.fromCurrentUser();
    JobSpec job;
    Tokens.Role as = "server".equals(role) ? Tokens.Role.SERVER : Tokens.Role.WORKER;
    try (SchedulerClient c = new SchedulerClient(master, secret, as, id, 10_000, 60_000)) {
      job = JobSpec.fromJson(c.job());
    }
    LOG.info("{} {} starting (master {})", role, id, master);
    body.run(id, master, secret, job);
    return 0;
  }
}
