package io.parsa.yarn.client;

import io.parsa.common.UsageException;
import java.io.File;
import java.net.URISyntaxException;
import java.security.CodeSource;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ClassUtil;

/**
 * Finds the job jar that YARN containers must run, the way Hadoop's own {@code JobConf.setJarByClass} does.
 *
 * <p>{@code hadoop jar} (Hadoop's {@code RunJar}) unpacks the jar into a temporary directory and puts that directory
 * on the class path <em>before</em> the jar itself, so a class's code source is the directory, not the jar. Asking
 * the class loader for every resource named like the class and taking the first {@code jar:} URL (Hadoop's
 * {@link ClassUtil#findContainingJar}) finds the jar in that case, in {@code bin/parsa}'s plain {@code java -cp} case
 * and inside YARN containers alike.
 */
public final class JobJar {
  /** Configuration key naming the job jar explicitly, for launchers that put neither the jar nor its path on the class path. */
  public static final String KEY = "parsa.job.jar";

  private JobJar() {}

  /**
   * The local jar file holding {@code cls}: {@value #KEY} if set, else the first jar on the class path that holds
   * the class. Refuses with a message saying what to do when the class comes only from a directory (a build tree).
   */
  public static File locate(Configuration conf, Class<?> cls) {
    String explicit = conf.getTrimmed(KEY);
    if (explicit != null && !explicit.isEmpty()) {
      File f = new File(explicit);
      if (!f.isFile()) {
        throw new UsageException(KEY + " = " + explicit + " is not a file");
      }
      return f;
    }
    String jar = ClassUtil.findContainingJar(cls);
    if (jar != null) {
      return new File(jar);
    }
    throw new UsageException("partition-u --mode yarn needs the shaded job jar (jobs/target/parsa-job.jar) to ship to "
        + "the containers, but " + cls.getName() + " was loaded from " + codeSource(cls)
        + "; run it through 'hadoop jar parsa-job.jar' or bin/parsa, or name the jar with -D" + KEY + "=PATH");
  }

  private static String codeSource(Class<?> cls) {
    CodeSource cs = cls.getProtectionDomain().getCodeSource();
    if (cs == null || cs.getLocation() == null) {
      return "an unknown location";
    }
    try {
      return new File(cs.getLocation().toURI()).toString();
    } catch (URISyntaxException | IllegalArgumentException e) {
      return cs.getLocation().toString();
    }
  }
}
