package io.parsa.yarn.client;

import io.parsa.common.UsageException;
import io.parsa.yarn.JobSpec;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.am.YarnAppMaster;
import io.parsa.yarn.am.YarnContainers;
import io.parsa.yarn.io.BlockStats;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.client.util.YarnClientUtils;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.webapp.util.WebAppUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client side of the YARN application: stages the job jar and the job description, submits the master, prints
 * the tracking URL and the progress from the application report until the end, and kills the application on Ctrl-C.
 */
public final class YarnSubmitter {
  private static final Logger LOG = LoggerFactory.getLogger(YarnSubmitter.class);

  /** One YARN application of the suite, as the generic submission path needs it. */
  public abstract static class Application {
    final String tool;
    final String appName;
    final String masterClass;
    final int masterMb;
    final String output;

    /**
     * @param tool the tool's name, prefixed to every console line (e.g. {@code partition-u})
     * @param appName the application's name in the ResourceManager
     * @param masterClass main class of the application master container
     * @param masterMb memory of the master container, MB
     * @param output where the result goes (printed on success)
     */
    protected Application(String tool, String appName, String masterClass, int masterMb, String output) {
      this.tool = tool;
      this.appName = appName;
      this.masterClass = masterClass;
      this.masterMb = masterMb;
      this.output = output;
    }

    /** The job description the master reads (staged as {@value YarnContainers#JOB_FILE}). */
    protected abstract String jobJson();

    /** Called with the forwarded-configuration entry naming the staged job jar, before {@link #jobJson()}. */
    protected abstract void stagedJar(String key, String path);

    /** Paths the application reads or writes: each must be on a cluster file system; each gets a token. */
    protected abstract List<String> paths();

    /** Refuses, with the numbers, what cannot fit: the largest container and the cluster's memory (-1: unknown). */
    protected abstract void check(long maxContainerMb, long clusterMb) throws IOException;
  }

  private final Configuration conf;
  private final JobSpec job;

  private final Sizing.Plan plan;
  private final BlockStats blockStats;

  /**
   * @param plan the container sizes chosen for this input (checked against the cluster before submitting); its
   *     sizes are also in {@code conf}
   * @param blockStats ingest's statistics of the blocks, or null
   */
  public YarnSubmitter(Configuration conf, JobSpec job, Sizing.Plan plan, BlockStats blockStats) {
    this.conf = new YarnConfiguration(conf);
    this.job = job;
    this.plan = plan;
    this.blockStats = blockStats;
  }

  /** Submits partition-u and waits; 0 on SUCCEEDED, 1 otherwise (with the master's diagnostics on stderr). */
  public int run() throws Exception {
    return submit(conf, new Application("partition-u", "parsa partition-u k=" + job.k, YarnAppMaster.class.getName(),
        plan.amMb, job.output) {
      @Override
      protected String jobJson() {
        return job.toJson();
      }

      @Override
      protected void stagedJar(String key, String path) {
        job.conf.put(key, path);
      }

      @Override
      protected List<String> paths() {
        List<String> paths = new ArrayList<>(job.blockPaths.subList(0, Math.min(1, job.blockPaths.size())));
        paths.add(job.output);
        paths.add(job.outputTmp);
        paths.add(job.checkpointDir);
        paths.add(job.initialNeighborSets);
        return paths;
      }

      @Override
      protected void check(long maxContainerMb, long clusterMb) throws IOException {
        Sizing.check(conf, plan, blockStats, job.k, maxContainerMb, clusterMb, job.workers);
      }
    });
  }

  /**
   * Stages the job jar and the job description of {@code app}, submits its master, prints the tracking URL and the
   * progress from the application report until the end, kills the application on Ctrl-C and removes the staging
   * directory; 0 on SUCCEEDED, 1 otherwise (with the master's diagnostics on stderr).
   */
  public static int submit(Configuration base, Application app) throws Exception {
    Configuration conf = new YarnConfiguration(base);
    String tool = app.tool;
    YarnClient yarn = YarnClient.createYarnClient();
    yarn.init(conf);
    yarn.start();
    Path staging = null;
    FileSystem fs = FileSystem.get(conf);
    try {
      YarnClientApplication created = yarn.createApplication();
      ApplicationSubmissionContext ctx = created.getApplicationSubmissionContext();
      ApplicationId appId = ctx.getApplicationId();
      // refuse what cannot fit before anything is staged or submitted
      long clusterMb = 0;
      for (org.apache.hadoop.yarn.api.records.NodeReport n
          : yarn.getNodeReports(org.apache.hadoop.yarn.api.records.NodeState.RUNNING)) {
        clusterMb += n.getCapability().getMemorySize();
      }
      app.check(created.getNewApplicationResponse().getMaximumResourceCapability().getMemorySize(),
          clusterMb > 0 ? clusterMb : -1);
      String root = conf.get(ParsaYarnConfig.STAGING_DIR, new Path(fs.getHomeDirectory(), ".parsa-staging").toString());
      staging = fs.makeQualified(new Path(root, appId.toString()));
      fs.mkdirs(staging);
      boolean mini = conf.getBoolean(YarnConfiguration.IS_MINI_YARN_CLUSTER, false);

      Map<String, LocalResource> resources = new HashMap<>();
      if (!mini) {
        for (String p : app.paths()) {
          if (p != null && "file".equals(new Path(p).toUri().getScheme())) {
            throw new UsageException(tool + " --mode yarn needs paths on the cluster file system; " + p
                + " is on the local file system of this machine (use --mode embedded for local paths)");
          }
        }
        File jar = JobJar.locate(conf, PartitionUTool.class);
        LOG.info("job jar {}", jar);
        Path dst = new Path(staging, YarnContainers.JOB_JAR);
        fs.copyFromLocalFile(false, true, new Path(jar.toURI()), dst);
        app.stagedJar(YarnContainers.JOB_JAR_KEY, dst.toString());
        resources.put(YarnContainers.JOB_JAR, YarnContainers.localResource(fs, dst));
      }
      Path jobFile = new Path(staging, YarnContainers.JOB_FILE);
      try (OutputStream out = fs.create(jobFile, true)) {
        out.write(app.jobJson().getBytes(StandardCharsets.UTF_8));
      }
      resources.put(YarnContainers.JOB_FILE, YarnContainers.localResource(fs, jobFile));

      Map<String, String> env = new HashMap<>();
      env.put("CLASSPATH", mini ? System.getProperty("java.class.path") : YarnContainers.clusterClasspath(conf));
      env.put(YarnContainers.ENV_STAGING, staging.toString());
      env.put(YarnContainers.ENV_CLASSPATH_MODE, mini ? "inherit" : "jar");
      int amMb = app.masterMb;
      String cmd = ApplicationConstants.Environment.JAVA_HOME.$$() + "/bin/java -Xmx"
          + ParsaYarnConfig.heapMb(conf, amMb) + "m -XX:+ExitOnOutOfMemoryError " + app.masterClass
          + " 1>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stdout"
          + " 2>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stderr";
      ContainerLaunchContext clc = ContainerLaunchContext.newInstance(resources, env, List.of(cmd), null, null, null);
      if (UserGroupInformation.isSecurityEnabled()) {
        Credentials creds = delegationTokens(conf, fs, app.paths());
        DataOutputBuffer dob = new DataOutputBuffer();
        creds.writeTokenStorageToStream(dob);
        clc.setTokens(java.nio.ByteBuffer.wrap(dob.getData(), 0, dob.getLength()));
      }
      ctx.setApplicationName(app.appName);
      ctx.setApplicationType("PARSA");
      ctx.setAMContainerSpec(clc);
      ctx.setResource(Resource.newInstance(amMb, conf.getInt(ParsaYarnConfig.AM_VCORES,
          ParsaYarnConfig.DEFAULT_AM_VCORES)));
      ctx.setQueue(conf.get(ParsaYarnConfig.QUEUE, ParsaYarnConfig.DEFAULT_QUEUE));
      ctx.setMaxAppAttempts(Math.max(1, conf.getInt(ParsaYarnConfig.AM_MAX_ATTEMPTS,
          ParsaYarnConfig.DEFAULT_AM_MAX_ATTEMPTS)));

      Thread killer = new Thread(() -> {
        try {
          ApplicationReport r = yarn.getApplicationReport(appId);
          if (!isTerminal(r.getYarnApplicationState())) {
            System.err.println(tool + ": killing application " + appId);
            yarn.killApplication(appId);
          }
        } catch (Exception e) {
          System.err.println(tool + ": could not kill " + appId + ": " + e);
        }
      }, "parsa-kill-on-exit");
      Runtime.getRuntime().addShutdownHook(killer);
      yarn.submitApplication(ctx);
      System.err.println(tool + ": submitted " + appId);
      try {
        return monitor(conf, yarn, appId, tool, app.output);
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException e) {
          // the JVM is shutting down: the hook runs and kills the application
        }
      }
    } finally {
      if (staging != null) {
        try {
          fs.delete(staging, true);
        } catch (IOException e) {
          LOG.warn("could not remove staging directory {}: {}", staging, e.toString());
        }
      }
      yarn.stop();
    }
  }

  /**
   * Delegation tokens for every file system the application touches (staging, and the file systems of
   * {@code paths}: for partition-u its blocks, output, checkpoints and initial neighbor sets), renewable by the
   * ResourceManager, whose principal's {@code _HOST} is resolved as
   * YARN's own clients do.
   */
  static Credentials delegationTokens(Configuration conf, FileSystem staging, List<String> paths) throws IOException {
    Credentials creds = new Credentials();
    String renewer = YarnClientUtils.getRmPrincipal(conf);
    if (renewer == null || renewer.isEmpty()) {
      throw new IOException("security is on but " + YarnConfiguration.RM_PRINCIPAL + " is not set; it names the "
          + "renewer of the application's HDFS delegation tokens");
    }
    staging.addDelegationTokens(renewer, creds);
    for (String p : paths) {
      if (p != null) {
        // one token per file system: addDelegationTokens skips file systems whose token is already there
        new Path(p).getFileSystem(conf).addDelegationTokens(renewer, creds);
      }
    }
    return creds;
  }

  private static int monitor(Configuration conf, YarnClient yarn, ApplicationId appId, String tool, String output)
      throws Exception {
    long interval = conf.getLong(ParsaYarnConfig.PROGRESS_INTERVAL_MS, ParsaYarnConfig.DEFAULT_PROGRESS_INTERVAL_MS);
    boolean urlShown = false;
    String lastLine = "";
    int attempt = 1;
    while (true) {
      ApplicationReport r = yarn.getApplicationReport(appId);
      if (r.getCurrentApplicationAttemptId() != null && r.getCurrentApplicationAttemptId().getAttemptId() > attempt) {
        attempt = r.getCurrentApplicationAttemptId().getAttemptId();
        System.err.println(tool + ": the application master was restarted (attempt " + attempt + ")");
      }
      YarnApplicationState st = r.getYarnApplicationState();
      if (!urlShown && st == YarnApplicationState.RUNNING) {
        System.err.println(tool + ": tracking URL " + trackingUrl(conf, r));
        urlShown = true;
      }
      String line = progressLine(r);
      if (!line.equals(lastLine)) {
        System.err.println(tool + ": " + line);
        lastLine = line;
      }
      if (isTerminal(st)) {
        FinalApplicationStatus fin = r.getFinalApplicationStatus();
        if (st == YarnApplicationState.FINISHED && fin == FinalApplicationStatus.SUCCEEDED) {
          System.err.println(tool + ": " + appId + " succeeded; output in " + output);
          return 0;
        }
        System.err.println(tool + ": " + appId + " ended " + st + "/" + fin + ": " + r.getDiagnostics());
        return 1;
      }
      Thread.sleep(Math.min(interval, 1000));
    }
  }

  /**
   * The application's progress as its master reports it to the ResourceManager (whole percent, so the line only
   * changes when something happened).
   */
  static String progressLine(ApplicationReport r) {
    YarnApplicationState st = r.getYarnApplicationState();
    if (st != YarnApplicationState.RUNNING) {
      return st.toString().toLowerCase(java.util.Locale.ROOT);
    }
    return String.format(java.util.Locale.ROOT, "running, %d %% done", (int) Math.floor(100 * r.getProgress()));
  }

  /**
   * The report's tracking URL (the ResourceManager's proxy link for the application), or the application's page
   * in the ResourceManager's web UI when the report has none.
   */
  private static String trackingUrl(Configuration conf, ApplicationReport r) {
    String url = r.getTrackingUrl();
    if (url != null && !url.isEmpty() && !url.equals("N/A")) {
      return url.contains("://") ? url : "http://" + url;
    }
    return WebAppUtils.getRMWebAppURLWithScheme(conf) + "/cluster/app/" + r.getApplicationId();
  }

  private static boolean isTerminal(YarnApplicationState st) {
    return st == YarnApplicationState.FINISHED || st == YarnApplicationState.FAILED
        || st == YarnApplicationState.KILLED;
  }

}
