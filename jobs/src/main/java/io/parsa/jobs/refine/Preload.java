package io.parsa.jobs.refine;

import io.parsa.engine.Block;
import io.parsa.engine.RowKeyGraph;
import io.parsa.engine.URefinement;
import io.parsa.yarn.io.BlockFiles;
import io.parsa.yarn.io.BlockStats;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What in-memory refine-u reads and builds before it needs the U, started early: the pipeline starts it while
 * partition-u runs (on YARN the client JVM only waits then), and refine-u takes it instead of reading the blocks again:
 * the decoded blocks, the rows over dense key ids, the input-order start and, on graphs (short rows), the multilevel
 * seeds placed and refined. It is taken only for the same blocks directory and k, and only if
 * every block file is still the one read (the same list of paths, each with the same length and modification time);
 * otherwise, or if the early read failed, refine-u reads as it always does.
 */
public final class Preload {
  private static final Logger LOG = LoggerFactory.getLogger(Preload.class);

  /** At most one preload waits to be taken, in this JVM. */
  private static final AtomicReference<Preload> OFFERED = new AtomicReference<>();

  /**
   * What was read and built; with a plan, the multilevel seeds it gives where refine-u starts with them (else
   * null).
   */
  record Read(List<Block> blocks, RowKeyGraph graph, int[][] orderStart, RefineUTool.Seeds plan,
      List<RefineUTool.Candidate> seeds) {
  }

  private final Path blocksDir;
  private final int k;
  private final List<FileStatus> files;
  private final FutureTask<Read> task;

  private Preload(Path blocksDir, int k, List<FileStatus> files, FutureTask<Read> task) {
    this.blocksDir = blocksDir;
    this.k = k;
    this.files = files;
    this.task = task;
  }

  /**
   * Starts reading {@code blocksDir} for refine-u at {@code k} parts on a background thread, where ingest's statistics
   * say refine-u would run in memory with room to spare: its estimated heap at most half of {@code maxHeap} (the step
   * running meanwhile needs its own). With refine-u's {@code plan} (may be null) it then places and refines the
   * multilevel seeds where refine-u would start with them (short rows, or {@code --multilevel on}), which do not
   * depend on the U. Returns whether it started (not where the blocks could not be listed: refine-u reports that);
   * a preload not yet taken is dropped.
   */
  public static boolean startIfRoom(Configuration conf, Path blocksDir, int k, long maxHeap, RefineUTool.Seeds plan) {
    if (plan != null && plan.k() != k) {
      throw new IllegalArgumentException("a plan for k = " + plan.k() + " with k = " + k);
    }
    try {
      return start(conf, blocksDir, k, maxHeap, plan);
    } catch (IOException e) {
      LOG.debug("refine-u's blocks not read ahead: {}", e.toString());
      discard();
      return false;
    }
  }

  private static boolean start(Configuration conf, Path blocksDir, int k, long maxHeap, RefineUTool.Seeds plan)
      throws IOException {
    FileSystem fs = blocksDir.getFileSystem(conf);
    Path dir = fs.makeQualified(blocksDir);
    List<Path> paths = BlockFiles.list(fs, dir);
    BlockStats counted = BlockStats.read(fs, dir, paths.size()).stats;
    if (counted == null || paths.isEmpty()
        || RefineUTool.fitProblem(fs, dir, k, maxHeap / 2) != null) {
      discard();
      return false;
    }
    List<FileStatus> statuses = new ArrayList<>();
    for (Path p : paths) {
      statuses.add(fs.getFileStatus(p));
    }
    FutureTask<Read> task = new FutureTask<>(() -> {
      List<Block> blocks = new ArrayList<>();
      for (int b = 0; b < paths.size(); b++) {
        blocks.add(RefineUTool.readBlock(fs, paths.get(b), counted, b));
      }
      RowKeyGraph graph = RowKeyGraph.of(blocks);
      int[][] order = URefinement.inputOrderStart(k, blocks);
      List<RefineUTool.Candidate> seeds = plan == null ? null
          : RefineUTool.seedsAhead(conf, fs, dir, plan, blocks, graph);
      return new Read(blocks, graph, order, plan, seeds);
    });
    offer(new Preload(dir, k, statuses, task));
    Thread t = new Thread(task, "refine-u-preload");
    t.setDaemon(true);
    t.start();
    return true;
  }

  /** Drops the preload not taken, if any (its thread stops where it can). */
  public static void discard() {
    offer(null);
  }

  /** Puts {@code p} (or nothing) in the slot; the preload it replaces, if any, is cancelled. */
  private static void offer(Preload p) {
    Preload old = OFFERED.getAndSet(p);
    if (old != null) {
      old.task.cancel(true);
    }
  }

  /**
   * The preload of {@code blocksDir}'s {@code files} at {@code k}, waited for, if one was started and they are still
   * the files it read; null otherwise (then refine-u reads them itself). Taken once.
   */
  static Read take(FileSystem fs, Path blocksDir, List<Path> files, int k) throws InterruptedException {
    Preload p = OFFERED.getAndSet(null);
    if (p == null) {
      return null;
    }
    try {
      String changed = p.changed(fs, fs.makeQualified(blocksDir), files, k);
      if (changed != null) {
        p.task.cancel(true);
        LOG.info("refine-u: not using the blocks read while partition-u ran: {}; reading them again", changed);
        return null;
      }
      Read r = p.task.get();
      // a file rewritten while it was read has a new modification time
      changed = p.changed(fs, fs.makeQualified(blocksDir), files, k);
      if (changed != null) {
        LOG.info("refine-u: not using the blocks read while partition-u ran: {}; reading them again", changed);
        return null;
      }
      return r;
    } catch (ExecutionException e) {
      LOG.info("refine-u: the early read of the blocks failed ({}); reading them again", e.getCause().toString());
      return null;
    } catch (IOException e) {
      LOG.info("refine-u: could not check the blocks read while partition-u ran ({}); reading them again",
          e.toString());
      return null;
    }
  }

  /** Why this preload is not of {@code dir}'s {@code now} files at {@code k}, or null. */
  private String changed(FileSystem fs, Path dir, List<Path> now, int k) throws IOException {
    if (!dir.equals(blocksDir) || k != this.k) {
      return "it was of " + blocksDir + " at k = " + this.k;
    }
    if (now.size() != files.size()) {
      return "the blocks are now " + now.size() + " files, not " + files.size();
    }
    for (int i = 0; i < files.size(); i++) {
      FileStatus then = files.get(i);
      if (!fs.makeQualified(now.get(i)).equals(then.getPath())) {
        return "block " + i + " is now " + now.get(i);
      }
      FileStatus st = fs.getFileStatus(then.getPath());
      if (st.getLen() != then.getLen() || st.getModificationTime() != then.getModificationTime()) {
        return then.getPath() + " changed since";
      }
    }
    return null;
  }
}
