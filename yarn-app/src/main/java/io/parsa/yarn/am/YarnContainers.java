package io.parsa.yarn.am;

import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.rpc.Secrets;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.URL;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.security.AMRMTokenIdentifier;

/** How partition-u containers are described to YARN: staged files, environment, classpath, credentials. */
public final class YarnContainers {

  /** Name of the localised job jar. */
  public static final String JOB_JAR = "parsa-job.jar";
  /** Job description file localised for the master. */
  public static final String JOB_FILE = "job.json";
  /** Key (in the job's forwarded configuration) of the staged job jar's path. */
  public static final String JOB_JAR_KEY = "parsa.yarn.job.jar";
  /** Environment: staging directory of the application. */
  public static final String ENV_STAGING = "PARSA_STAGING";
  /** Environment: "inherit" (mini cluster: use the parent JVM's classpath) or "jar". */
  public static final String ENV_CLASSPATH_MODE = "PARSA_CLASSPATH_MODE";

  private YarnContainers() {}

  public static LocalResource localResource(FileSystem fs, Path p) throws IOException {
    FileStatus st = fs.getFileStatus(p);
    return LocalResource.newInstance(URL.fromPath(fs.makeQualified(p)), LocalResourceType.FILE,
        LocalResourceVisibility.APPLICATION, st.getLen(), st.getModificationTime());
  }

  /** The job jar first, then the cluster's own Hadoop classpath. */
  public static String clusterClasspath(Configuration conf) {
    StringBuilder cp = new StringBuilder(ApplicationConstants.Environment.CLASSPATH.$$());
    cp.append(ApplicationConstants.CLASS_PATH_SEPARATOR).append("./").append(JOB_JAR);
    for (String c : conf.getStrings(YarnConfiguration.YARN_APPLICATION_CLASSPATH,
        YarnConfiguration.DEFAULT_YARN_CROSS_PLATFORM_APPLICATION_CLASSPATH)) {
      cp.append(ApplicationConstants.CLASS_PATH_SEPARATOR).append(c.trim());
    }
    return cp.toString();
  }

  /**
   * A launch context running {@code mainClass args} with the same classpath arrangement as the master, and the
   * RPC secret in its credentials (plus the master's own tokens except the AMRM token).
   */
  public static ContainerLaunchContext launchContext(Configuration conf, String mainClass, List<String> args,
      int heapMb, String secret) throws IOException {
    Map<String, LocalResource> resources = new HashMap<>();
    String jar = conf.get(JOB_JAR_KEY);
    Map<String, String> env = new HashMap<>();
    if ("inherit".equals(System.getenv(ENV_CLASSPATH_MODE)) || jar == null) {
      env.put("CLASSPATH", System.getProperty("java.class.path"));
    } else {
      Path p = new Path(jar);
      resources.put(JOB_JAR, localResource(p.getFileSystem(conf), p));
      env.put("CLASSPATH", clusterClasspath(conf));
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(ApplicationConstants.Environment.JAVA_HOME.$$() + "/bin/java");
    cmd.add("-Xmx" + heapMb + "m");
    // an OutOfMemoryError in any thread (a block prefetcher, say) ends the container at once, with the error in
    // its log, instead of leaving a live JVM that makes no progress until the master's liveness timeout
    cmd.add("-XX:+ExitOnOutOfMemoryError");
    // the heap estimates of Sizing were measured with the parallel collector; under G1 a server's 256 sub-maps of
    // multi-MB arrays are humongous objects, and at 3·10^8 non-zeros a server sized for ~2.2 GB of shard died of
    // OutOfMemoryError in a 3.2 GB heap
    String opts = conf.get(ParsaYarnConfig.CONTAINER_JAVA_OPTS, ParsaYarnConfig.DEFAULT_CONTAINER_JAVA_OPTS).trim();
    if (!opts.isEmpty()) {
      cmd.add(opts);
    }
    cmd.add(mainClass);
    cmd.addAll(args);
    cmd.add("1>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stdout");
    cmd.add("2>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stderr");
    Credentials creds = new Credentials();
    for (Token<?> t : UserGroupInformation.getCurrentUser().getCredentials().getAllTokens()) {
      if (!t.getKind().equals(AMRMTokenIdentifier.KIND_NAME)) {
        creds.addToken(t.getService(), t);
      }
    }
    Secrets.addTo(creds, secret);
    DataOutputBuffer dob = new DataOutputBuffer();
    creds.writeTokenStorageToStream(dob);
    ByteBuffer tokens = ByteBuffer.wrap(dob.getData(), 0, dob.getLength());
    return ContainerLaunchContext.newInstance(resources, env, List.of(String.join(" ", cmd)), null, tokens, null);
  }
}
