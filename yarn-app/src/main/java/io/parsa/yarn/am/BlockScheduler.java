package io.parsa.yarn.am;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Decides which block goes to which worker (paper Algorithm 4, scheduler side). Pull-based: a worker asks and
 * gets the next block of the current stage, so fast workers take more.
 *
 * <ul>
 *   <li>Stage 0, global initialisation: the first worker to ask takes the sampled init blocks one at a time
 *       (sequentially: each starts from the sets the previous one pushed); then warm-up blocks (individual
 *       initialisation) go to any worker: one at a time in a wave run (each from the sets the one before pushed,
 *       so the run stays reproducible), side by side without waves. Stage-0 results are dropped.</li>
 *   <li>Stage 1 starts once every stage-0 block is done (a barrier): every block, in name order.</li>
 * </ul>
 *
 * <p>Balance: before running a stage-1 block the worker calls {@link #reserve}; the scheduler returns the
 * engine's starting loads and reserves the block's water-filling quota (see {@link LoadQuotas}). The engine then
 * reproduces exactly that quota, so the committed loads of all finished blocks stay within one row of each
 * other. With unit row weights and the row counts of all blocks known ({@link #fixRowCounts}), block j starts
 * from the loads that rows of blocks 0..j-1 leave — exactly the loads the sequential engine starts block j with,
 * whatever the order in which the workers happen to reserve. This matters for quality, not only for balance: the
 * load pattern decides which parts pick last in each round and take a block's leftover rows, and a pattern that
 * depends on timing let one part collect the leftovers of several blocks (M_max 8-15 % above the sequential
 * engine in about one run in ten on news20). Weighted rows in waves with every block's weight known
 * ({@link #fixBlockWeights}): block j starts from the loads the earlier waves left, summed in block order, plus the
 * water-filling quotas of the blocks before it in its own wave, taken from their weights; that too is the same
 * whatever the order of reservation, and the engine's departures from a quota (a weighted row is not divisible)
 * are corrected wave by wave. Otherwise (counts or weights unknown, or no waves) a block starts from
 * {@code committed + reserved} at the time it reserves. A lost block's reservation is released and the block is
 * handed out again.
 *
 * <p>Waves ({@link #useWaves}): the stage-1 blocks fall into waves of {@code W} consecutive blocks, and a block
 * passes two gates ({@link #gate}). It pulls once every block of the earlier waves is done, and it pushes once
 * every block of its own wave has reserved (so has pulled). Every block then starts from exactly the neighbor
 * sets of the waves before its own, whichever worker runs it and whenever: with the fixed starting loads above the
 * run is reproducible for any number of workers and any timing. Without waves (width 0) a block pulls whatever
 * the servers hold at the time, the paper's asynchronous scheme. A pull gate that waits for a block no worker runs
 * (handed out again after its worker was lost) releases its own block back to the queue: the asking worker then
 * fetches the lowest block queued, so the run cannot wait for a replacement worker that never comes.
 *
 * <p>Thread-safe: every method is synchronized; the class does no I/O.
 */
public final class BlockScheduler {

  /** What the scheduler tells a worker. */
  public enum Kind { RUN, WAIT, STOP }

  /** The answer at a gate: go on, ask again later, or drop the block (it is back in the queue). */
  public enum GateAnswer { PASS, WAIT, RELEASE }

  /** One hand-out of a block. */
  public static final class Assignment {
    public final Kind kind;
    public final long taskId;
    public final int blockIndex;
    public final int stage;
    /**
     * A stage-0 block's place in stage 0's order (init blocks, then warm-up blocks), the same when it runs again;
     * −1 in stage 1.
     */
    public final int stage0Position;

    Assignment(Kind kind, long taskId, int blockIndex, int stage, int stage0Position) {
      this.kind = kind;
      this.taskId = taskId;
      this.blockIndex = blockIndex;
      this.stage = stage;
      this.stage0Position = stage0Position;
    }

    static final Assignment WAIT = new Assignment(Kind.WAIT, -1, -1, -1, -1);
    static final Assignment STOP = new Assignment(Kind.STOP, -1, -1, -1, -1);
  }

  /** A snapshot for progress reporting. */
  public static final class Progress {
    public int stage;
    public int blocksDone;
    public int blocksTotal;
    public int stage0Done;
    public int stage0Total;
    public long rowsDone;
    public long edgesDone;
    /** Rows per part of the finished stage-1 blocks, as their workers reported them. */
    public long[] partRows;
    public int running;
    public long stage0Millis;
    public long stage1Millis;
    public double[] partLoads;
  }

  private static final class Running {
    final long taskId;
    final int blockIndex;
    final int stage;
    final int worker;
    final int stage0Position;
    double[] quota;

    Running(long taskId, int blockIndex, int stage, int worker, int stage0Position) {
      this.taskId = taskId;
      this.blockIndex = blockIndex;
      this.stage = stage;
      this.worker = worker;
      this.stage0Position = stage0Position;
    }
  }

  private final int k;
  private final int numBlocks;
  private final boolean weighted;
  private final LongSupplier clock;
  /** Stage-0 positions still to run (init blocks, then warm-up blocks); {@link #stage0Blocks} maps them to blocks. */
  private final Deque<Integer> initQueue = new ArrayDeque<>();
  private final Deque<Integer> warmupQueue = new ArrayDeque<>();
  /** The block at every place of stage 0 (its length: stage 0's blocks). */
  private final int[] stage0Blocks;
  /** Init blocks: the first places of stage 0. */
  private final int initCount;
  /** Stage-1 blocks to hand out, lowest index first (a block handed out again goes back in its place). */
  private final java.util.TreeSet<Integer> mainQueue = new java.util.TreeSet<>();
  private final Map<Long, Running> running = new HashMap<>();
  private final boolean[] done;
  private final double[] committed;
  private final long[] committedRows;
  private int stage0Done;
  private int blocksDone;
  private long rowsDone;
  private long edgesDone;
  private int initWorker = -1;
  private int stage;
  private long nextTaskId = 1;
  private final long startedAt;
  private long stage0EndedAt = -1;
  private long stage1EndedAt = -1;
  private boolean aborted;
  /** Per block: rows of the blocks before it, in block order (null: bases follow the reservation order). */
  private long[] rowsBefore;
  private long[] rowsPerBlock;
  private String rowCountMismatch;
  /** Blocks per wave; 0: no waves (asynchronous). */
  private int waveWidth;
  /** Blocks 0..donePrefix-1 are all done. */
  private int donePrefix;
  private int releases;
  /** Per block (waves only): counted in its wave's {@link #ready}, being done or reserved by its running task. */
  private boolean[] counted;
  /** Per wave: its blocks done or reserved, so each gate is answered in constant time. */
  private int[] ready;
  /** Weighted rows in waves: every block's weight, in block order (null: bases follow the reservation order). */
  private double[] blockWeights;
  /** With {@link #blockWeights}: the loads of the waves whose blocks are all done, summed in block order. */
  private double[] closed;
  /** Waves summed into {@link #closed}. */
  private int closedWaves;
  /** With {@link #blockWeights}: the loads of each done block of a wave not yet closed. */
  private final Map<Integer, double[]> openLoads = new HashMap<>();

  /**
   * @param k parts
   * @param numBlocks blocks (indices 0..numBlocks-1, in name order)
   * @param initBlocks block indices for global initialisation, in processing order
   * @param warmupBlocks block indices for individual initialisation (warm-up), in processing order
   * @param weighted loads are row weights (quotas approximate) instead of row counts
   * @param clock milliseconds
   */
  public BlockScheduler(int k, int numBlocks, List<Integer> initBlocks, List<Integer> warmupBlocks,
      boolean weighted, LongSupplier clock) {
    this.k = k;
    this.numBlocks = numBlocks;
    this.weighted = weighted;
    this.clock = clock;
    this.initCount = initBlocks.size();
    stage0Blocks = new int[initBlocks.size() + warmupBlocks.size()];
    for (int i = 0; i < stage0Blocks.length; i++) {
      stage0Blocks[i] = i < initBlocks.size() ? initBlocks.get(i) : warmupBlocks.get(i - initBlocks.size());
      (i < initBlocks.size() ? initQueue : warmupQueue).add(i);
    }
    for (int b = 0; b < numBlocks; b++) {
      mainQueue.add(b);
    }
    this.done = new boolean[numBlocks];
    this.committed = new double[k];
    this.committedRows = new long[k];
    this.startedAt = clock.getAsLong();
    this.stage = stage0Blocks.length == 0 ? 1 : 0;
    if (stage == 1) {
      stage0EndedAt = startedAt;
    }
  }

  /** The next block for {@code worker}, or WAIT / STOP. */
  public synchronized Assignment next(int worker) {
    if (aborted || finished()) {
      return Assignment.STOP;
    }
    if (stage == 0) {
      if (!initQueue.isEmpty()) {
        if (initWorker == -1) {
          initWorker = worker;
        }
        if (initWorker != worker || runningInitBlocks() > 0) {
          return Assignment.WAIT;
        }
        int position = initQueue.poll();
        return handOut(stage0Blocks[position], 0, worker, position);
      }
      // in waves the warm-up blocks run one at a time too, each from the sets the one before it pushed (and one run
      // again from what it pulled the first time, by its place); asynchronous, side by side, with replace pushes
      if (runningInitBlocks() > 0 || warmupQueue.isEmpty() || waveWidth > 0 && !running.isEmpty()) {
        return Assignment.WAIT;
      }
      int position = warmupQueue.poll();
      return handOut(stage0Blocks[position], 0, worker, position);
    }
    if (mainQueue.isEmpty()) {
      return Assignment.WAIT;
    }
    return handOut(mainQueue.pollFirst(), 1, worker, -1);
  }

  /** Whether {@code r} runs an init block (one of stage 0's first places). */
  private boolean isInit(Running r) {
    return r.stage == 0 && r.stage0Position < initCount;
  }

  private int runningInitBlocks() {
    int n = 0;
    for (Running r : running.values()) {
      if (isInit(r)) {
        n++;
      }
    }
    return n;
  }

  private Assignment handOut(int block, int stg, int worker, int stage0Position) {
    long id = nextTaskId++;
    running.put(id, new Running(id, block, stg, worker, stage0Position));
    return new Assignment(Kind.RUN, id, block, stg, stage0Position);
  }

  /**
   * Starting loads for a block about to run; reserves its quota (stage 1 only; stage 0 starts from zero).
   *
   * @throws IllegalArgumentException for an unknown task or one of another worker
   */
  public synchronized double[] reserve(int worker, long taskId, long rows, double weight) {
    Running r = runningTask(worker, taskId);
    if (r.stage == 0) {
      return new double[k];
    }
    count(r.blockIndex);
    if (rowsBefore != null && rows != rowsPerBlock[r.blockIndex]) {
      // the block changed since it was counted: fall back to reservation-order bases (balance is unaffected)
      rowCountMismatch = "block " + r.blockIndex + " has " + rows + " rows but " + rowsPerBlock[r.blockIndex]
          + " were counted before stage 1";
      rowsBefore = null;
    }
    if (rowsBefore != null) {
      double[] base = LoadQuotas.unitQuota(new double[k], rowsBefore[r.blockIndex]);
      r.quota = LoadQuotas.unitQuota(base, rows);
      return base;
    }
    if (blockWeights != null && waveWidth > 0
        && Math.abs(weight - blockWeights[r.blockIndex]) > 1e-9 * Math.max(1, Math.abs(weight))) {
      rowCountMismatch = "block " + r.blockIndex + " weighs " + weight + " but " + blockWeights[r.blockIndex]
          + " was summed before stage 1";
      blockWeights = null;
    }
    if (blockWeights != null && waveWidth > 0) {
      // the earlier waves are all done (the pull gate); the blocks before this one in its wave count by their quota
      double[] base = closed.clone();
      for (int j = r.blockIndex / waveWidth * waveWidth; j < r.blockIndex; j++) {
        add(base, LoadQuotas.weightQuota(base, blockWeights[j]));
      }
      r.quota = LoadQuotas.weightQuota(base, weight);
      return base;
    }
    double[] base = committed.clone();
    for (Running o : running.values()) {
      if (o.quota != null && o != r) {
        for (int i = 0; i < k; i++) {
          base[i] += o.quota[i];
        }
      }
    }
    r.quota = weighted ? LoadQuotas.weightQuota(base, weight) : LoadQuotas.unitQuota(base, rows);
    return base;
  }

  /**
   * Fixes the starting loads of stage-1 blocks to the sequential engine's (unit row weights only; ignored for
   * weighted rows). Call before stage 1 starts.
   *
   * @param rows rows of each block, in block order
   */
  public synchronized void fixRowCounts(long[] rows) {
    if (rows.length != numBlocks) {
      throw new IllegalArgumentException(rows.length + " row counts for " + numBlocks + " blocks");
    }
    if (weighted) {
      return;
    }
    rowsPerBlock = rows.clone();
    rowsBefore = new long[numBlocks];
    for (int b = 1; b < numBlocks; b++) {
      rowsBefore[b] = rowsBefore[b - 1] + rows[b - 1];
    }
  }

  /**
   * Fixes the starting loads of weighted stage-1 blocks in waves (see the class comment; ignored for unweighted rows,
   * and without waves). Call before stage 1 starts.
   *
   * @param weights Σ of the row weights of each block, in block order
   */
  public synchronized void fixBlockWeights(double[] weights) {
    if (weights.length != numBlocks) {
      throw new IllegalArgumentException(weights.length + " block weights for " + numBlocks + " blocks");
    }
    if (!weighted) {
      return;
    }
    blockWeights = weights.clone();
    closed = new double[k];
  }

  /** Whether weighted blocks start from the fixed loads of {@link #fixBlockWeights} (not after a mismatch). */
  public synchronized boolean blockWeightsFixed() {
    return blockWeights != null && waveWidth > 0;
  }

  private static void add(double[] to, double[] d) {
    for (int i = 0; i < to.length; i++) {
      to[i] += d[i];
    }
  }

  /** Sums the loads of every wave whose blocks are now all done into {@link #closed}, in block order. */
  private void closeWaves() {
    if (closed == null || waveWidth == 0) {
      return;
    }
    int first;
    while ((first = closedWaves * waveWidth) < numBlocks && Math.min(numBlocks, first + waveWidth) <= donePrefix) {
      for (int j = first; j < Math.min(numBlocks, first + waveWidth); j++) {
        double[] l = openLoads.remove(j);
        if (l != null) {
          add(closed, l);
        }
      }
      closedWaves++;
    }
  }

  /**
   * Runs stage 1 in waves of {@code width} consecutive blocks (0: asynchronously). Call before stage 1 starts.
   */
  public synchronized void useWaves(int width) {
    if (width < 0) {
      throw new IllegalArgumentException("wave width must be at least 0, got " + width);
    }
    waveWidth = width;
    counted = width == 0 ? null : new boolean[numBlocks];
    ready = width == 0 ? null : new int[(numBlocks + width - 1) / width];
    for (int b = 0; width > 0 && b < numBlocks; b++) {
      if (done[b]) {
        count(b);
      }
    }
  }

  /** Counts block {@code b} as done or reserved in its wave (once). */
  private void count(int b) {
    if (counted != null && !counted[b]) {
      counted[b] = true;
      ready[b / waveWidth]++;
    }
  }

  /** Takes back the count of a block whose running task is gone before it was done. */
  private void uncount(int b) {
    if (counted != null && counted[b] && !done[b]) {
      counted[b] = false;
      ready[b / waveWidth]--;
    }
  }

  /** Blocks per wave; 0 when stage 1 runs asynchronously. */
  public synchronized int waveWidth() {
    return waveWidth;
  }

  /**
   * Whether a running task may pass a gate now: {@code push} false, the pull of its block's neighbor sets (every
   * block of the earlier waves done); {@code push} true, the push of its new members (every block of its wave
   * done or reserved). Always PASS in stage 0 and without waves. RELEASE (pull gate only): the gate waits for a
   * block that is queued, not running; the task is released and its block queued again, and the worker drops it.
   *
   * @throws IllegalArgumentException for an unknown task or one of another worker
   */
  public synchronized GateAnswer gate(int worker, long taskId, boolean push) {
    Running r = runningTask(worker, taskId);
    if (waveWidth == 0 || r.stage == 0) {
      return GateAnswer.PASS;
    }
    int first = r.blockIndex / waveWidth * waveWidth;
    if (!push) {
      if (donePrefix >= first) {
        return GateAnswer.PASS;
      }
      if (!mainQueue.isEmpty() && mainQueue.first() < first) {
        running.remove(taskId);
        uncount(r.blockIndex);
        mainQueue.add(r.blockIndex);
        releases++;
        return GateAnswer.RELEASE;
      }
      return GateAnswer.WAIT;
    }
    int size = Math.min(numBlocks, first + waveWidth) - first;
    return ready[r.blockIndex / waveWidth] == size ? GateAnswer.PASS : GateAnswer.WAIT;
  }

  /**
   * Whether a task's push waits for a block of its wave that the same worker holds and has not pulled: only that
   * worker's main thread can let it pass, so the committer's questions are no sign that the worker is alive.
   */
  public synchronized boolean waitsOnOwnBlock(int worker, long taskId) {
    Running r = runningTask(worker, taskId);
    if (waveWidth == 0 || r.stage == 0) {
      return false;
    }
    int wave = r.blockIndex / waveWidth;
    for (Running o : running.values()) {
      if (o.worker == worker && o.stage == 1 && o.blockIndex / waveWidth == wave && !counted[o.blockIndex]) {
        return true;
      }
    }
    return false;
  }

  /** How many blocks a pull gate released back to the queue. */
  public synchronized int releases() {
    return releases;
  }

  private void advanceDonePrefix() {
    while (donePrefix < numBlocks && done[donePrefix]) {
      donePrefix++;
    }
  }

  /** Why the fixed starting loads were abandoned, or null. */
  public synchronized String rowCountMismatch() {
    return rowCountMismatch;
  }

  private Running runningTask(int worker, long taskId) {
    Running r = running.get(taskId);
    if (r == null || r.worker != worker) {
      throw new IllegalArgumentException("task " + taskId + " is not running on worker " + worker);
    }
    return r;
  }

  /**
   * Records a finished block. Returns false (and changes nothing) if the task is no longer running, e.g. it was
   * re-queued after its worker was declared lost.
   *
   * @param partLoads load the block added to each part
   * @param partRows rows of the block assigned to each part (length k; empty if the worker did not say)
   */
  public synchronized boolean done(int worker, long taskId, double[] partLoads, long[] partRows, long rows,
      long edges) {
    Running r = running.get(taskId);
    if (r == null || r.worker != worker) {
      return false;
    }
    running.remove(taskId);
    if (r.stage == 0) {
      stage0Done++;
      if (stage0Done == stage0Blocks.length) {
        stage = 1;
        stage0EndedAt = clock.getAsLong();
      }
      return true;
    }
    if (partLoads.length != k) {
      throw new IllegalArgumentException("partLoads has length " + partLoads.length + ", expected " + k);
    }
    if (partRows.length != k) {
      throw new IllegalArgumentException("partRows has length " + partRows.length + ", expected " + k);
    }
    if (!done[r.blockIndex]) {
      done[r.blockIndex] = true;
      blocksDone++;
      rowsDone += rows;
      edgesDone += edges;
      for (int i = 0; i < k; i++) {
        committed[i] += partLoads[i];
        committedRows[i] += partRows[i];
      }
      if (closed != null) {
        openLoads.put(r.blockIndex, partLoads.clone());
      }
      count(r.blockIndex);
      advanceDonePrefix();
      closeWaves();
    }
    if (blocksDone == numBlocks) {
      stage1EndedAt = clock.getAsLong();
    }
    return true;
  }

  /**
   * What an earlier master attempt finished: the stage-1 blocks done so far and their sums. Small (one int per
   * finished block plus O(k)); the master writes it to its ledger so a later attempt can take over.
   */
  public synchronized DoneLedger ledger() {
    DoneLedger l = new DoneLedger();
    for (int b = 0; b < numBlocks; b++) {
      if (done[b]) {
        l.blocks.add(b);
      }
    }
    l.rows = rowsDone;
    l.edges = edgesDone;
    l.partLoads = committed.clone();
    l.partRows = committedRows.clone();
    if (closed != null) {
      l.closedLoads = closed.clone();
      l.closedWaves = closedWaves;
      l.openLoads = new java.util.TreeMap<>();
      openLoads.forEach((b, x) -> l.openLoads.put(b, x.clone()));
    }
    return l;
  }

  /** Marks the stage-1 blocks of an earlier master attempt's ledger as done (their assignment files exist). */
  public synchronized void recovered(DoneLedger l) {
    recovered(l.blocks, l.partLoads, l.partRows, l.rows, l.edges, perWave(l));
  }

  /**
   * Whether the ledger's loads per wave ({@link DoneLedger#closedLoads}, {@link DoneLedger#openLoads}) can stand for
   * its sums: written by a weighted run in waves like this one, every open block among its done blocks, and the parts
   * summing to its loads. Else null: the sums count as closed.
   */
  private DoneLedger perWave(DoneLedger l) {
    if (closed == null || waveWidth == 0 || l.closedLoads == null || l.openLoads == null
        || l.closedLoads.length != k || l.closedWaves < 0 || l.closedWaves * waveWidth > donePrefixOf(l.blocks)
        || !l.blocks.containsAll(l.openLoads.keySet())) {
      return null;
    }
    double[] sum = l.closedLoads.clone();
    for (double[] x : l.openLoads.values()) {
      if (x.length != k) {
        return null;
      }
      add(sum, x);
    }
    for (int i = 0; i < k; i++) {
      if (Math.abs(sum[i] - l.partLoads[i]) > 1e-9 * Math.max(1, Math.abs(l.partLoads[i]))) {
        return null;
      }
    }
    return l;
  }

  /** The blocks 0..p−1 that are all in {@code blocks}: p. */
  private int donePrefixOf(List<Integer> blocks) {
    java.util.BitSet set = new java.util.BitSet(numBlocks);
    blocks.forEach(set::set);
    return set.nextClearBit(0);
  }

  private void recovered(List<Integer> blocks, double[] partLoads, long[] partRows, long rows, long edges,
      DoneLedger waves) {
    if (partLoads.length != k || partRows.length != k) {
      throw new IllegalArgumentException("ledger sums have " + partLoads.length + "/" + partRows.length
          + " parts, expected " + k);
    }
    if (stage != 1) {
      throw new IllegalStateException("blocks can only be recovered in stage 1");
    }
    for (int b : blocks) {
      if (done[b]) {
        throw new IllegalArgumentException("block " + b + " recovered twice");
      }
      done[b] = true;
      mainQueue.remove(b);
      blocksDone++;
      count(b);
    }
    advanceDonePrefix();
    rowsDone += rows;
    edgesDone += edges;
    for (int i = 0; i < k; i++) {
      committed[i] += partLoads[i];
      committedRows[i] += partRows[i];
    }
    if (closed != null && waves != null) {
      // the earlier attempt's loads per wave: the rest of a wave it left half done starts from the same loads as in
      // an undisturbed run
      closed = waves.closedLoads.clone();
      closedWaves = waves.closedWaves;
      waves.openLoads.forEach((b, x) -> openLoads.put(b, x.clone()));
      closeWaves();
    } else if (closed != null) {
      // a ledger without loads per wave (an older version's): its sums count as closed, so the rest of a wave it left
      // half done starts from its done blocks' loads too (balanced, not reproducible)
      add(closed, partLoads);
      closeWaves();
    }
    if (blocksDone == numBlocks) {
      stage1EndedAt = clock.getAsLong();
    }
  }

  /** Re-queues every block running on {@code worker} (its container is gone); returns how many. */
  public synchronized int workerLost(int worker) {
    List<Running> lost = new ArrayList<>();
    for (Running r : running.values()) {
      if (r.worker == worker) {
        lost.add(r);
      }
    }
    lost.sort((a, b) -> Long.compare(b.taskId, a.taskId));
    for (Running r : lost) {
      running.remove(r.taskId);
      if (r.stage == 0) {
        (isInit(r) ? initQueue : warmupQueue).addFirst(r.stage0Position);
      } else {
        uncount(r.blockIndex);
        mainQueue.add(r.blockIndex);
      }
    }
    if (worker == initWorker) {
      initWorker = -1;
    }
    return lost.size();
  }

  /** Stops handing out work (the run failed). */
  public synchronized void abort() {
    aborted = true;
  }

  public synchronized boolean finished() {
    return blocksDone == numBlocks && stage == 1;
  }

  public synchronized int stage() {
    return stage;
  }

  /** Per-part committed loads. */
  public synchronized double[] committedLoads() {
    return committed.clone();
  }

  public synchronized Progress progress() {
    Progress p = new Progress();
    p.stage = finished() ? 2 : stage;
    p.blocksDone = blocksDone;
    p.blocksTotal = numBlocks;
    p.stage0Done = stage0Done;
    p.stage0Total = stage0Blocks.length;
    p.rowsDone = rowsDone;
    p.edgesDone = edgesDone;
    p.running = running.size();
    long now = clock.getAsLong();
    p.stage0Millis = (stage0EndedAt < 0 ? now : stage0EndedAt) - startedAt;
    p.stage1Millis = stage0EndedAt < 0 ? 0 : (stage1EndedAt < 0 ? now : stage1EndedAt) - stage0EndedAt;
    p.partLoads = committed.clone();
    p.partRows = committedRows.clone();
    return p;
  }
}
