package io.parsa.engine.bench;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;

/** Reads libsvm/svmlight or edge-list files (optionally gzip-compressed) into an {@link InMemoryGraph}. */
final class GraphReader {
  private GraphReader() {}

  static BufferedReader open(Path file) throws IOException {
    InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
    if (file.getFileName().toString().endsWith(".gz")) {
      in = new GZIPInputStream(in, 1 << 16);
    }
    return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
  }

  /** libsvm: {@code label idx:val ...}; row id = 0-based line number; keys = feature indices as given. */
  static InMemoryGraph readLibsvm(Path file) throws IOException {
    LongList keys = new LongList();
    IntList starts = new IntList();
    starts.add(0);
    try (BufferedReader r = open(file)) {
      String line;
      int lineNo = 0;
      while ((line = r.readLine()) != null) {
        lineNo++;
        int len = line.length();
        int i = 0;
        while (i < len && line.charAt(i) != ' ' && line.charAt(i) != '\t') {
          i++; // label
        }
        while (i < len) {
          while (i < len && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
            i++;
          }
          if (i >= len || line.charAt(i) == '#') {
            break;
          }
          long idx = 0;
          int s = i;
          while (i < len && line.charAt(i) >= '0' && line.charAt(i) <= '9') {
            idx = idx * 10 + (line.charAt(i) - '0');
            i++;
          }
          if (i == s || i >= len || line.charAt(i) != ':') {
            throw new IOException(file + ":" + lineNo + ": expected idx:value at column " + (s + 1));
          }
          keys.add(idx);
          while (i < len && line.charAt(i) != ' ' && line.charAt(i) != '\t') {
            i++; // value
          }
        }
        starts.add(keys.size);
      }
    }
    int n = starts.size - 1;
    long[] ids = new long[n];
    for (int i = 0; i < n; i++) {
      ids[i] = i;
    }
    return new InMemoryGraph(ids, starts.toArray(), keys.toArray());
  }

  /**
   * Edge list {@code u<TAB>v} ({@code #} comments): row u gets key v; with {@code symmetric}, also row v gets
   * key u (undirected graphs listing each edge once).
   */
  static InMemoryGraph readEdges(Path file, boolean symmetric) throws IOException {
    LongList src = new LongList();
    LongList dst = new LongList();
    try (BufferedReader r = open(file)) {
      String line;
      int lineNo = 0;
      while ((line = r.readLine()) != null) {
        lineNo++;
        if (line.isEmpty() || line.charAt(0) == '#') {
          continue;
        }
        String[] f = line.trim().split("\\s+");
        if (f.length < 2) {
          throw new IOException(file + ":" + lineNo + ": expected 'u<TAB>v'");
        }
        long u = Long.parseLong(f[0]);
        long v = Long.parseLong(f[1]);
        src.add(u);
        dst.add(v);
        if (symmetric) {
          src.add(v);
          dst.add(u);
        }
      }
    }
    // sort edges by source (index sort via packed order of a primitive permutation)
    int m = src.size;
    long[] s = Arrays.copyOf(src.data, m);
    long[] sortedSrc = s.clone();
    Arrays.sort(sortedSrc);
    long[] distinctSrc = new long[m];
    int n = 0;
    for (int i = 0; i < m; i++) {
      if (i == 0 || sortedSrc[i] != sortedSrc[i - 1]) {
        distinctSrc[n++] = sortedSrc[i];
      }
    }
    int[] count = new int[n + 1];
    int[] rowOf = new int[m];
    for (int i = 0; i < m; i++) {
      rowOf[i] = Arrays.binarySearch(distinctSrc, 0, n, s[i]);
      count[rowOf[i] + 1]++;
    }
    for (int i = 0; i < n; i++) {
      count[i + 1] += count[i];
    }
    int[] start = count.clone();
    long[] keys = new long[m];
    for (int i = 0; i < m; i++) {
      keys[count[rowOf[i]]++] = dst.data[i];
    }
    return new InMemoryGraph(Arrays.copyOf(distinctSrc, n), start, keys);
  }

  static final class LongList {
    long[] data = new long[1024];
    int size;

    void add(long x) {
      if (size == data.length) {
        data = Arrays.copyOf(data, (int) Math.min(Integer.MAX_VALUE - 8, 2L * data.length));
      }
      data[size++] = x;
    }

    long[] toArray() {
      return Arrays.copyOf(data, size);
    }
  }

  static final class IntList {
    int[] data = new int[1024];
    int size;

    void add(int x) {
      if (size == data.length) {
        data = Arrays.copyOf(data, (int) Math.min(Integer.MAX_VALUE - 8, 2L * data.length));
      }
      data[size++] = x;
    }

    int[] toArray() {
      return Arrays.copyOf(data, size);
    }
  }
}
