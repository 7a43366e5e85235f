package io.parsa.yarn.rpc;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * The neighbor-set protocol's long arrays as one Avro {@code bytes} value: the count, then every value, all as Avro's
 * zig-zag varints, written and read with Avro's own binary encoder. Keys go as differences from the key before them
 * (a block's keys arrive sorted, so most differences take one or two bytes); membership words go as they are.
 *
 * <p>An {@code array<long>} field costs a boxed {@code Long} per value on both ends (Avro's generic array reader and
 * writer): the RPC's Avro reading and writing took 7.2 % of partition-u's CPU samples in the news20 pipeline, 2.7 %
 * packed (async-profiler, docs/quality.md §23). Sorted keys also take fewer bytes on the wire than their own varints.
 */
public final class PackedLongs {
  private PackedLongs() {}

  /** Packs {@code a} as differences (keys). */
  public static ByteBuffer keys(long[] a) {
    return pack(a, true);
  }

  /** Packs {@code a} as it is (membership words). */
  public static ByteBuffer words(long[] a) {
    return pack(a, false);
  }

  private static ByteBuffer pack(long[] a, boolean delta) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(8 + 3 * a.length);
    BinaryEncoder enc = EncoderFactory.get().binaryEncoder(bytes, null);
    try {
      enc.writeInt(a.length);
      long prev = 0;
      for (long v : a) {
        enc.writeLong(delta ? v - prev : v); // wraps around for far-apart keys and back in unpack: exact either way
        prev = v;
      }
      enc.flush();
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory failed", e); // a ByteArrayOutputStream does not throw
    }
    return ByteBuffer.wrap(bytes.toByteArray());
  }

  /** Unpacks keys written by {@link #keys(long[])}; see {@link #unpack}. */
  public static long[] unpackKeys(ByteBuffer packed, int maxCount) throws IOException {
    return unpack(packed, true, maxCount);
  }

  /** Unpacks words written by {@link #words(long[])}; see {@link #unpack}. */
  public static long[] unpackWords(ByteBuffer packed, int maxCount) throws IOException {
    return unpack(packed, false, maxCount);
  }

  /**
   * The values of {@code packed} (its position is left where it was).
   *
   * @throws IOException if the count is negative or above {@code maxCount}, a varint is cut short or malformed, or
   *     bytes are left over
   */
  private static long[] unpack(ByteBuffer packed, boolean delta, int maxCount) throws IOException {
    if (packed == null) {
      throw new IOException("no values");
    }
    ByteBuffer b = packed.duplicate();
    byte[] arr;
    int off;
    int len = b.remaining();
    if (b.hasArray()) {
      arr = b.array();
      off = b.arrayOffset() + b.position();
    } else {
      arr = new byte[len];
      b.get(arr);
      off = 0;
    }
    BinaryDecoder dec = DecoderFactory.get().binaryDecoder(arr, off, len, null);
    int n = dec.readInt();
    if (n < 0 || n > maxCount) {
      throw new IOException(n + " values, expected 0 to " + maxCount);
    }
    if (n > len) { // every value takes at least one byte
      throw new IOException(n + " values in " + len + " bytes");
    }
    long[] out = new long[n];
    long prev = 0;
    try {
      for (int i = 0; i < n; i++) {
        long v = dec.readLong();
        prev = delta ? prev + v : v;
        out[i] = prev;
      }
    } catch (java.io.EOFException e) {
      throw new IOException("cut short: " + n + " values announced in " + len + " bytes");
    } catch (org.apache.avro.InvalidNumberEncodingException e) {
      throw new IOException("malformed varint: " + e.getMessage());
    }
    if (!dec.isEnd()) {
      throw new IOException("bytes left after " + n + " values");
    }
    return out;
  }
}
