package io.parsa.jobs.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.GraphRow;
import io.parsa.avro.UAssignment;
import io.parsa.jobs.baseline.BaselineAssignTool;
import io.parsa.jobs.mr.Jobs;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.client.PartitionUTool;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.NeighborSetFiles;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.mapred.MiniMRClientCluster;
import org.apache.hadoop.mapred.MiniMRClientClusterFactory;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authentication.util.KerberosName;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The suite on a Kerberos-secured cluster: a MiniKdc, a MiniDFSCluster with Kerberos RPC and block access tokens, a
 * MapReduce-on-YARN mini cluster whose ResourceManager, NodeManager and history server log in from a keytab. The
 * user logs in from her own keytab; partition-u (a YARN application) and ingest (a MapReduce job) must then work on
 * delegation tokens alone inside their containers, and a client without a Kerberos login must be refused.
 *
 * <p>Runs in a JVM of its own (tag {@code kerberos}, a separate surefire execution of the jobs module): the login
 * state of {@link UserGroupInformation} and the KDC's krb5.conf are process-wide. All daemons share one service
 * principal, as Hadoop's own secure mini-cluster tests do: an in-process RPC server authenticates as the process's
 * login user, which is whoever logged in last.
 */
@Tag("kerberos")
class KerberosClusterIT {

  private static final String USER = "alice";

  private static MiniKdc kdc;
  private static MiniDFSCluster dfs;
  private static MiniMRClientCluster mr;
  private static Configuration conf;
  private static File site;
  private static UserGroupInformation alice;

  @BeforeAll
  static void start() throws Exception {
    File base = new File("target/kerberos-it").getAbsoluteFile();
    FileUtil.fullyDelete(base);
    assertTrue(base.mkdirs(), "cannot create " + base);
    site = new File(new File(KerberosClusterIT.class.getProtectionDomain().getCodeSource().getLocation().toURI()),
        "yarn-site.xml");
    if (site.delete()) {
      Configuration.reloadExistingConfigurations();
    }

    kdc = new MiniKdc(MiniKdc.createConf(), new File(base, "kdc"));
    kdc.start();
    KerberosName.resetDefaultRealm();
    String realm = kdc.getRealm();
    File serviceKeytab = new File(base, "hadoop.keytab");
    kdc.createPrincipal(serviceKeytab, "hadoop/localhost", "HTTP/localhost");
    File userKeytab = new File(base, USER + ".keytab");
    kdc.createPrincipal(userKeytab, USER);
    String service = "hadoop/_HOST@" + realm;
    String http = "HTTP/_HOST@" + realm;
    String keytab = serviceKeytab.getAbsolutePath();

    Configuration c = new Configuration();
    SecurityUtil.setAuthenticationMethod(UserGroupInformation.AuthenticationMethod.KERBEROS, c);
    // HDFS: Kerberos RPC, block access tokens; the DataNode may use unprivileged ports without SASL data transfer
    c.set("dfs.namenode.kerberos.principal", service);
    c.set("dfs.namenode.keytab.file", keytab);
    // MiniDFSCluster names its DataNode 127.0.0.1, which _HOST would become: name the principal itself
    c.set("dfs.datanode.kerberos.principal", "hadoop/localhost@" + realm);
    c.set("dfs.datanode.keytab.file", keytab);
    c.set("dfs.web.authentication.kerberos.principal", http);
    c.set("dfs.web.authentication.kerberos.keytab", keytab);
    c.setBoolean("dfs.block.access.token.enable", true);
    c.setBoolean("ignore.secure.ports.for.testing", true);
    c.setInt("dfs.replication", 1);
    c.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(base, "dfs").getPath());
    // YARN and the MapReduce history server
    c.set(YarnConfiguration.RM_PRINCIPAL, service);
    c.set(YarnConfiguration.RM_KEYTAB, keytab);
    c.set(YarnConfiguration.NM_PRINCIPAL, service);
    c.set(YarnConfiguration.NM_KEYTAB, keytab);
    c.set(YarnConfiguration.RM_WEBAPP_SPNEGO_USER_NAME_KEY, http);
    c.set(YarnConfiguration.RM_WEBAPP_SPNEGO_KEYTAB_FILE_KEY, keytab);
    c.set(YarnConfiguration.NM_WEBAPP_SPNEGO_USER_NAME_KEY, http);
    c.set(YarnConfiguration.NM_WEBAPP_SPNEGO_KEYTAB_FILE_KEY, keytab);
    c.set("mapreduce.jobhistory.principal", service);
    c.set("mapreduce.jobhistory.keytab", keytab);
    c.set("mapreduce.jobhistory.webapp.spnego-principal", http);
    c.set("mapreduce.jobhistory.webapp.spnego-keytab-file", keytab);
    UserGroupInformation.setConfiguration(c);
    UserGroupInformation admin = UserGroupInformation.loginUserFromKeytabAndReturnUGI("hadoop/localhost@" + realm,
        keytab);

    dfs = new MiniDFSCluster.Builder(c).numDataNodes(1).format(true).build();
    dfs.waitActive();
    c.set("fs.defaultFS", dfs.getFileSystem().getUri().toString());
    admin.doAs((PrivilegedExceptionAction<Void>) () -> {
      FileSystem fs = FileSystem.newInstance(c);
      fs.mkdirs(new Path("/tmp"));
      fs.setPermission(new Path("/tmp"), new FsPermission((short) 01777));
      Path home = new Path("/user/" + USER);
      fs.mkdirs(home);
      fs.setOwner(home, USER, USER);
      fs.close();
      return null;
    });

    c.setInt(YarnConfiguration.NM_LOG_RETAIN_SECONDS, Integer.getInteger("kerberos.it.keep.logs.s", 1));
    c.setInt(YarnConfiguration.DEBUG_NM_DELETE_DELAY_SEC, Integer.getInteger("kerberos.it.keep.logs.s", 0));
    // What /etc/krb5.conf is on a real cluster's nodes: every container JVM finds the KDC's realm through it.
    c.set(YarnConfiguration.NM_ADMIN_USER_ENV, "JDK_JAVA_OPTIONS=-Djava.security.krb5.conf="
        + kdc.getKrb5conf().getAbsolutePath() + " --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED");
    c.setInt(YarnConfiguration.NM_PMEM_MB, 8192);
    c.setInt(YarnConfiguration.NM_VCORES, 16);
    c.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 64);
    c.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    c.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    c.setFloat(YarnConfiguration.NM_MAX_PER_DISK_UTILIZATION_PERCENTAGE, 99.9f);
    c.set("yarn.app.mapreduce.am.staging-dir", "/tmp/hadoop-yarn/staging");
    c.setInt("yarn.app.mapreduce.am.resource.mb", 512);
    c.setInt("mapreduce.map.memory.mb", 512);
    c.setInt("mapreduce.reduce.memory.mb", 512);
    c.set("mapreduce.map.java.opts", "-Xmx384m");
    c.set("mapreduce.reduce.java.opts", "-Xmx384m");
    c.setInt("mapreduce.task.io.sort.mb", 32);
    mr = admin.doAs((PrivilegedExceptionAction<MiniMRClientCluster>) () ->
        MiniMRClientClusterFactory.create(KerberosClusterIT.class, 1, c));
    conf = new Configuration(mr.getConfig());
    admin.doAs((PrivilegedExceptionAction<Void>) () -> {
      // every user's job stages under here and leaves its history under history/done_intermediate
      FileSystem fs = FileSystem.newInstance(conf);
      for (String d : new String[] {"/tmp/hadoop-yarn", "/tmp/hadoop-yarn/staging",
          "/tmp/hadoop-yarn/staging/history", "/tmp/hadoop-yarn/staging/history/done_intermediate"}) {
        fs.mkdirs(new Path(d));
        fs.setPermission(new Path(d), new FsPermission((short) 01777));
      }
      fs.close();
      return null;
    });
    // The partition-u master (classpath: this JVM's) finds the ResourceManager through yarn-site.xml.
    try (OutputStream out = new FileOutputStream(site)) {
      conf.writeXml(out);
    }
    alice = UserGroupInformation.loginUserFromKeytabAndReturnUGI(USER + "@" + realm, userKeytab.getAbsolutePath());
  }

  @AfterAll
  static void stop() throws Exception {
    if (mr != null) {
      mr.stop();
    }
    if (dfs != null) {
      dfs.shutdown();
    }
    if (kdc != null) {
      kdc.stop();
    }
    if (site != null) {
      site.delete();
    }
  }

  private static <T> T asAlice(PrivilegedExceptionAction<T> action) throws Exception {
    return alice.doAs(action);
  }

  @Test
  @Timeout(240)
  void partitionUOnYarnAsAKerberosUserAssignsEveryRowOnce() throws Exception {
    Path dir = new Path("/user/" + USER + "/partition-u");
    Path blocks = new Path(dir, "blocks");
    Path out = new Path(dir, "out");
    int rows = 1500;
    asAlice(() -> {
      writeBlocks(FileSystem.get(conf), blocks, rows, 6);
      return null;
    });
    Configuration c = new Configuration(conf);
    c.set(ParsaYarnConfig.STAGING_DIR, new Path(dir, "staging").toString());
    c.setInt(ParsaYarnConfig.AM_MEMORY_MB, 512);
    c.setInt(ParsaYarnConfig.WORKER_MEMORY_MB, 512);
    c.setInt(ParsaYarnConfig.SERVER_MEMORY_MB, 384);
    c.setLong(ParsaYarnConfig.PROGRESS_INTERVAL_MS, 500);
    int rc = asAlice(() -> ToolRunner.run(c, new PartitionUTool(), new String[] {"--blocks", blocks.toString(),
        "--output", out.toString(), "--k", "4", "--workers", "2", "--servers", "1", "--mode", "yarn"}));
    assertEquals(0, rc, "partition-u --mode yarn as " + USER);
    Set<Long> ids = asAlice(() -> {
      FileSystem fs = FileSystem.get(conf);
      Set<Long> seen = new HashSet<>();
      for (Path f : NeighborSetFiles.list(fs, new Path(out, "u-assignment"))) {
        AssignmentFiles.Rows r = AssignmentFiles.read(fs, f);
        for (int i = 0; i < r.n; i++) {
          assertTrue(seen.add(r.ids[i]), "row " + r.ids[i] + " assigned twice");
          assertTrue(r.parts[i] >= 0 && r.parts[i] < 4, "part " + r.parts[i] + " out of range");
        }
      }
      assertEquals(USER, fs.getFileStatus(out).getOwner(), "the output belongs to the submitting user");
      return seen;
    });
    assertEquals(rows, ids.size(), "every row assigned exactly once");
  }

  // A map-only step: with security on, the ShuffleHandler serves map outputs only through Hadoop's native
  // SecureIOUtils ("Secure IO is not possible without native code extensions"), which this machine lacks, so a
  // step with reducers cannot run on a secure mini cluster here.
  @Test
  @Timeout(240)
  void assignBaselineMapReduceJobAsAKerberosUserAssignsEveryRowOnce() throws Exception {
    Path dir = new Path("/user/" + USER + "/baseline");
    Path blocks = new Path(dir, "blocks");
    Path out = new Path(dir, "u");
    int rows = 1000;
    asAlice(() -> {
      writeBlocks(FileSystem.get(conf), blocks, rows, 3);
      return null;
    });
    int rc = asAlice(() -> ToolRunner.run(new Configuration(conf), new BaselineAssignTool(), new String[] {
        "--blocks", blocks.toString(), "--output", out.toString(), "--k", "4", "--algorithm", "hash"}));
    assertEquals(0, rc, "assign-baseline as " + USER);
    Set<Long> ids = asAlice(() -> {
      Set<Long> seen = new HashSet<>();
      for (UAssignment a : Jobs.readAvroDir(FileSystem.get(conf), out, UAssignment.class)) {
        assertTrue(seen.add(a.getId()), "row " + a.getId() + " assigned twice");
        assertEquals((int) (a.getId() % 4), a.getPart(), "hash placement of row " + a.getId());
      }
      return seen;
    });
    assertEquals(rows, ids.size(), "every row assigned exactly once");
  }

  @Test
  @Timeout(120)
  void clientWithoutKerberosLoginIsRefused() throws Exception {
    UserGroupInformation anonymous = UserGroupInformation.createRemoteUser("mallory");
    assertEquals(UserGroupInformation.AuthenticationMethod.SIMPLE, anonymous.getAuthenticationMethod());
    IOException hdfs = assertThrows(IOException.class, () -> anonymous.doAs((PrivilegedExceptionAction<Object>) () -> {
      try (FileSystem fs = FileSystem.newInstance(conf)) {
        return fs.listStatus(new Path("/"));
      }
    }));
    assertRefused(hdfs, "the NameNode");
    Exception yarn = assertThrows(Exception.class, () -> anonymous.doAs((PrivilegedExceptionAction<Object>) () -> {
      YarnClient yc = YarnClient.createYarnClient();
      YarnConfiguration yconf = new YarnConfiguration(conf);
      // an authentication failure is final: do not retry for the default 15 minutes
      yconf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_MAX_WAIT_MS, 1000);
      yconf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_RETRY_INTERVAL_MS, 500);
      yc.init(yconf);
      yc.start();
      try {
        return yc.createApplication();
      } finally {
        yc.stop();
      }
    }));
    assertRefused(yarn, "the ResourceManager");
  }

  /**
   * The server answered the SASL negotiation with only Kerberos and token authentication, which a client without
   * a ticket or token cannot use (an AccessControlException somewhere in the cause chain).
   */
  private static void assertRefused(Throwable t, String server) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof AccessControlException
          && String.valueOf(c.getMessage()).contains("cannot authenticate via:[TOKEN, KERBEROS]")) {
        return;
      }
    }
    throw new AssertionError(server + " refused for another reason than authentication: " + t, t);
  }

  /** {@code n} rows with a few keys each, shuffled over {@code blocks} GraphRow block files (ids 0..n-1). */
  private static void writeBlocks(FileSystem fs, Path dir, int n, int blocks) throws IOException {
    Random r = new Random(7);
    List<GraphRow> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int topic = r.nextInt(6);
      List<Long> keys = new ArrayList<>();
      for (int j = 0, d = 2 + r.nextInt(8); j < d; j++) {
        keys.add(r.nextInt(4) == 0 ? (long) r.nextInt(50) : 100L + topic * 200 + r.nextInt(200));
      }
      rows.add(new GraphRow((long) i, keys, null, ByteBuffer.wrap(new byte[] {'x'})));
    }
    java.util.Collections.shuffle(rows, r);
    int per = (n + blocks - 1) / blocks;
    for (int b = 0; b < blocks; b++) {
      try (DataFileWriter<GraphRow> w = new DataFileWriter<>(new SpecificDatumWriter<>(GraphRow.class))) {
        w.create(GraphRow.getClassSchema(), fs.create(new Path(dir, String.format("block-%05d.avro", b))));
        for (int i = b * per; i < Math.min(n, (b + 1) * per); i++) {
          w.append(rows.get(i));
        }
      }
    }
    fs.create(new Path(dir, "_SUCCESS")).close();
  }
}
