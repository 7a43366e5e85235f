package io.parsa.yarn.server;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write-ahead log of one server's acknowledged pushes, in numbered segments
 * {@code <dir>/server-<id>-log-<segment>}. Every record is flushed to the file system ({@code hflush}: on HDFS
 * visible to a new reader even if this process dies) before the push is acknowledged.
 *
 * <pre>
 *   record: | length (int) | crc32 of payload (int) | payload: worker (int) | sequence (long) | replace (byte)
 *           |   wave (int) | n (int) | n keys (long) | n * wpk words (long) |
 * </pre>
 *
 * A record cut short by a crash (short read or CRC mismatch at the tail) was never acknowledged; replay stops
 * there. On a local file system the checksum layer is bypassed (its buffered checksum chunks would not reach the
 * file on a flush).
 */
final class PushLog {
  private static final Logger LOG = LoggerFactory.getLogger(PushLog.class);
  private static final int HEADER = 8;
  /** A payload's bytes before its keys: worker, sequence, replace, wave, key count. */
  private static final int FIXED = 4 + 8 + 1 + 4 + 4;
  private static final long FENCE_TIMEOUT_MS = 300_000L;

  /** One logged push. */
  interface Replay {
    void accept(int worker, long sequence, boolean replace, int wave, long[] keys, long[] bits) throws IOException;
  }

  private PushLog() {}

  /** The file system the log uses: the raw local one for {@code file:}, else {@code fs} itself. */
  static FileSystem logFs(FileSystem fs) {
    return fs instanceof LocalFileSystem ? ((LocalFileSystem) fs).getRawFileSystem() : fs;
  }

  static Path segmentPath(Path dir, int serverId, long segment) {
    return new Path(dir, String.format("server-%d-log-%09d", serverId, segment));
  }

  /** Segment numbers of {@code serverId} in {@code dir}, ascending. */
  static List<Long> segments(FileSystem fs, Path dir, int serverId) throws IOException {
    String prefix = "server-" + serverId + "-log-";
    List<Long> out = new ArrayList<>();
    if (!fs.exists(dir)) {
      return out;
    }
    for (FileStatus st : logFs(fs).listStatus(dir, p -> p.getName().startsWith(prefix))) {
      out.add(Long.parseLong(st.getPath().getName().substring(prefix.length())));
    }
    out.sort(null);
    return out;
  }

  /** An open segment; not thread-safe (the service appends under its push lock). */
  static final class Writer implements AutoCloseable {
    private final FSDataOutputStream out;
    private final long segment;
    private long records;

    Writer(FileSystem fs, Path dir, int serverId, long segment) throws IOException {
      this.segment = segment;
      this.out = logFs(fs).create(segmentPath(dir, serverId, segment), false);
    }

    long segment() {
      return segment;
    }

    long records() {
      return records;
    }

    /** Appends one push and flushes it to the file system. */
    void append(int worker, long sequence, boolean replace, int wave, long[] keys, long[] bits) throws IOException {
      long payload = FIXED + 8L * keys.length + 8L * bits.length;
      if (payload > Integer.MAX_VALUE - HEADER) {
        throw new IOException("push of " + keys.length + " keys too large for one log record");
      }
      ByteBuffer b = ByteBuffer.allocate(HEADER + (int) payload);
      b.position(HEADER);
      b.putInt(worker).putLong(sequence).put((byte) (replace ? 1 : 0)).putInt(wave).putInt(keys.length);
      b.asLongBuffer().put(keys);
      b.position(b.position() + 8 * keys.length);
      b.asLongBuffer().put(bits);
      CRC32 crc = new CRC32();
      crc.update(b.array(), HEADER, (int) payload);
      b.putInt(0, (int) payload).putInt(4, (int) crc.getValue());
      out.write(b.array());
      out.hflush();
      records++;
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }

  /**
   * Makes sure no earlier incarnation of the server can still append to {@code path}: on HDFS, recovers the
   * file's lease (the old writer's next flush then fails, so it cannot acknowledge a push this replay misses) and
   * waits until the file is closed. Elsewhere (local file systems: embedded mode) the launcher stops the old
   * server before starting the new one.
   */
  static void fence(FileSystem fs, Path path) throws IOException {
    if (!(fs instanceof DistributedFileSystem)) {
      return;
    }
    DistributedFileSystem dfs = (DistributedFileSystem) fs;
    long deadline = System.currentTimeMillis() + FENCE_TIMEOUT_MS;
    while (!dfs.recoverLease(path)) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("could not recover the lease of push log " + path + " within " + FENCE_TIMEOUT_MS
            + " ms");
      }
      io.parsa.yarn.rpc.Sleeper.sleep(1000);
    }
  }

  /**
   * Replays segment {@code path}; stops quietly at a torn tail.
   *
   * @return records replayed
   */
  static long replay(FileSystem fs, Path path, int wpk, Replay sink) throws IOException {
    long n = 0;
    try (DataInputStream in = new DataInputStream(logFs(fs).open(path))) {
      while (true) {
        int len;
        int crc;
        byte[] payload;
        try {
          len = in.readInt();
          crc = in.readInt();
          if (len < FIXED || len > Integer.MAX_VALUE - HEADER) {
            LOG.warn("{}: record {} has a bad length {}; replay stops (torn tail)", path, n + 1, len);
            return n;
          }
          payload = new byte[len];
          in.readFully(payload);
        } catch (EOFException e) {
          return n;
        }
        CRC32 c = new CRC32();
        c.update(payload);
        if ((int) c.getValue() != crc) {
          LOG.warn("{}: record {} fails its checksum; replay stops (torn tail)", path, n + 1);
          return n;
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        int worker = b.getInt();
        long seq = b.getLong();
        boolean replace = b.get() != 0;
        int wave = b.getInt();
        int keys = b.getInt();
        if ((long) len != FIXED + 8L * keys * (1 + wpk)) {
          throw new IOException(path + ": record " + (n + 1) + " holds " + keys + " keys in " + len
              + " bytes; expected " + wpk + " words per key");
        }
        long[] ks = new long[keys];
        long[] bits = new long[keys * wpk];
        b.asLongBuffer().get(ks);
        b.position(b.position() + 8 * keys);
        b.asLongBuffer().get(bits);
        sink.accept(worker, seq, replace, wave, ks, bits);
        n++;
      }
    }
  }
}
