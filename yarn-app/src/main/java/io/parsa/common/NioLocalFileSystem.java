package io.parsa.common;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.nativeio.NativeIO;

/**
 * Hadoop's local file system, reading and setting permissions through java.nio where Hadoop's native library is not
 * loaded. Without it, {@link RawLocalFileSystem} runs {@code chmod} in a child process for every file and directory
 * it creates and {@code ls -ld} for every status whose permission, owner or group is read: 19 ms a created file and
 * 10 ms a status on the development machine (docs/quality.md §24), paid by every step of a local pipeline. With the
 * native library loaded, or for a permission java.nio cannot express (the sticky bit), it behaves exactly as Hadoop's.
 * {@link #install} makes it the {@code file:} implementation unless the configuration names one.
 */
public class NioLocalFileSystem extends LocalFileSystem {

  /** The configuration key of the {@code file:} scheme's implementation. */
  public static final String IMPL_KEY = "fs.file.impl";

  public NioLocalFileSystem() {
    super(new Raw());
  }

  /**
   * Makes this the {@code file:} implementation in {@code conf} for a run whose MapReduce jobs run in this JVM
   * ({@code mapreduce.framework.name} local, the embedded default), unless a user set one. A cluster's jobs keep
   * Hadoop's own: their tasks and application masters read the job's configuration on other machines.
   */
  public static void install(Configuration conf) {
    if (conf.get(IMPL_KEY) != null) {
      return;
    }
    // a plain Configuration has not read mapred-site.xml yet (MapReduce's classes add it when they load)
    Configuration probe = new Configuration(conf);
    probe.addResource("mapred-site.xml");
    if ("local".equals(probe.get("mapreduce.framework.name", "local"))) {
      conf.set(IMPL_KEY, NioLocalFileSystem.class.getName());
    }
  }

  /** The raw (checksum-less) file system under {@link NioLocalFileSystem}. */
  public static class Raw extends RawLocalFileSystem {

    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      if (NativeIO.isAvailable() || permission.getStickyBit()) {
        super.setPermission(p, permission);
        return;
      }
      try {
        // the nine bits as rwxr-x--- (no sticky bit here), in java.nio's own notation
        Files.setPosixFilePermissions(pathToFile(p).toPath(), PosixFilePermissions.fromString(permission.toString()));
      } catch (NoSuchFileException e) {
        throw new FileNotFoundException("File " + p + " does not exist");
      } catch (UnsupportedOperationException e) {
        super.setPermission(p, permission); // a file system without POSIX permissions
      }
    }

    @Override
    public FileStatus getFileStatus(Path f) throws IOException {
      if (NativeIO.isAvailable()) {
        return super.getFileStatus(f);
      }
      java.io.File file = pathToFile(f);
      PosixFileAttributes a;
      try {
        a = Files.readAttributes(file.toPath(), PosixFileAttributes.class);
      } catch (NoSuchFileException e) {
        throw new FileNotFoundException("File " + f + " does not exist");
      } catch (UnsupportedOperationException e) {
        return super.getFileStatus(f); // a file system without POSIX attributes
      }
      // the fields Hadoop's status has (a directory's length is its size on the local disk there too)
      FsPermission permission = FsPermission.valueOf("-" + PosixFilePermissions.toString(a.permissions()));
      return new FileStatus(a.size(), a.isDirectory(), 1, getDefaultBlockSize(f), a.lastModifiedTime().toMillis(),
          a.lastAccessTime().toMillis(), permission, a.owner().getName(), a.group().getName(),
          new Path(file.getPath()).makeQualified(getUri(), getWorkingDirectory()));
    }
  }
}
