package io.parsa.common;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.Arrays;
import java.util.Comparator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The java.nio local file system against Hadoop's own, on the same files. */
class NioLocalFileSystemTest {

  private static FileSystem nio(Configuration conf) throws IOException {
    FileSystem fs = new NioLocalFileSystem();
    fs.initialize(URI.create("file:///"), conf);
    return fs;
  }

  private static FileSystem hadoops(Configuration conf) throws IOException {
    FileSystem fs = new LocalFileSystem();
    fs.initialize(URI.create("file:///"), conf);
    return fs;
  }

  @Test
  void createsAndReportsWhatHadoopsLocalFileSystemDoes(@TempDir java.nio.file.Path tmp) throws IOException {
    Configuration conf = new Configuration(false);
    conf.set("fs.permissions.umask-mode", "022");
    try (FileSystem nio = nio(conf); FileSystem hadoop = hadoops(conf)) {
      Path root = new Path(tmp.toUri());
      for (FileSystem fs : new FileSystem[] {nio, hadoop}) {
        Path dir = new Path(root, fs == nio ? "nio" : "hadoop");
        assertTrue(fs.mkdirs(new Path(dir, "a/b")));
        assertTrue(fs.mkdirs(new Path(dir, "restricted"), new FsPermission((short) 0700)));
        try (FSDataOutputStream out = fs.create(new Path(dir, "a/b/data"), false)) {
          out.write(new byte[1234]);
        }
        try (FSDataOutputStream out = fs.create(new Path(dir, "private"), new FsPermission((short) 0640), false,
            4096, (short) 1, 1 << 20, null)) {
          out.write(7);
        }
        fs.setPermission(new Path(dir, "a/b/data"), new FsPermission((short) 0604));
      }
      // every status, read through either, agrees with Hadoop's: permission, owner, group, length, kind, times
      for (String rel : new String[] {"a", "a/b", "a/b/data", "restricted", "private"}) {
        FileStatus mine = nio.getFileStatus(new Path(root, "nio/" + rel));
        FileStatus theirs = hadoop.getFileStatus(new Path(root, "hadoop/" + rel));
        assertEquals(theirs.getPermission(), mine.getPermission(), rel);
        assertEquals(theirs.getOwner(), mine.getOwner(), rel);
        assertEquals(theirs.getGroup(), mine.getGroup(), rel);
        assertEquals(theirs.isDirectory(), mine.isDirectory(), rel);
        if (!theirs.isDirectory()) {
          assertEquals(theirs.getLen(), mine.getLen(), rel);
        }
        FileStatus same = hadoop.getFileStatus(new Path(root, "nio/" + rel));
        assertEquals(same.getPermission(), mine.getPermission(), rel);
        assertEquals(same.getModificationTime(), mine.getModificationTime(), rel);
        assertEquals(same.getPath(), mine.getPath(), rel);
        assertEquals(same.getBlockSize(), mine.getBlockSize(), rel);
      }
      assertEquals(new FsPermission((short) 0640), nio.getFileStatus(new Path(root, "nio/private")).getPermission());
      assertEquals(new FsPermission((short) 0604), nio.getFileStatus(new Path(root, "nio/a/b/data")).getPermission());
      assertEquals(new FsPermission((short) 0700), nio.getFileStatus(new Path(root, "nio/restricted")).getPermission());
      // listings name the same entries with the same statuses
      FileStatus[] mine = nio.listStatus(new Path(root, "nio"));
      FileStatus[] theirs = hadoop.listStatus(new Path(root, "nio"));
      Arrays.sort(mine, Comparator.comparing(FileStatus::getPath));
      Arrays.sort(theirs, Comparator.comparing(FileStatus::getPath));
      assertArrayEquals(Arrays.stream(theirs).map(s -> s.getPath() + " " + s.getPermission() + " " + s.getOwner())
          .toArray(), Arrays.stream(mine).map(s -> s.getPath() + " " + s.getPermission() + " " + s.getOwner())
          .toArray());
      assertThrows(FileNotFoundException.class, () -> nio.getFileStatus(new Path(root, "nio/missing")));
      assertThrows(FileNotFoundException.class,
          () -> nio.setPermission(new Path(root, "nio/missing"), new FsPermission((short) 0644)));
    }
  }

  /** Every one of the 512 modes set on a file reads back as set, through this file system and through Hadoop's. */
  @Test
  void everyModeRoundTrips(@TempDir java.nio.file.Path tmp) throws IOException {
    Configuration conf = new Configuration(false);
    try (FileSystem nio = nio(conf); FileSystem hadoop = hadoops(conf)) {
      Path file = new Path(new Path(tmp.toUri()), "f");
      nio.create(file, false).close();
      for (int mode = 0; mode < 512; mode++) {
        FsPermission p = new FsPermission((short) mode);
        nio.setPermission(file, p);
        assertEquals(p, nio.getFileStatus(file).getPermission(), Integer.toOctalString(mode));
        if (mode % 73 == 0) { // Hadoop's reads start a process each: a sample of the modes
          assertEquals(p, hadoop.getFileStatus(file).getPermission(), Integer.toOctalString(mode));
        }
      }
    }
  }

  @Test
  void installedOnlyForLocalJobsAndNeverOverAUsersChoice() {
    Configuration local = new Configuration(false);
    NioLocalFileSystem.install(local);
    assertEquals(NioLocalFileSystem.class.getName(), local.get(NioLocalFileSystem.IMPL_KEY));
    Configuration cluster = new Configuration(false);
    cluster.set("mapreduce.framework.name", "yarn");
    NioLocalFileSystem.install(cluster);
    assertEquals(null, cluster.get(NioLocalFileSystem.IMPL_KEY));
    Configuration chosen = new Configuration(false);
    chosen.set(NioLocalFileSystem.IMPL_KEY, LocalFileSystem.class.getName());
    NioLocalFileSystem.install(chosen);
    assertEquals(LocalFileSystem.class.getName(), chosen.get(NioLocalFileSystem.IMPL_KEY));
  }
}
