package io.parsa.jobs.refine;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * A row's proposed or decided move between the jobs of the distributed swap rounds: row {@code row} of block
 * {@code block} from part {@code from} to part {@code to}. A record with row {@link #MARKER} only says that the block
 * exists (so that the apply job rewrites every block's assignment, moved rows or not).
 */
public final class Move implements Writable {

  /** The row id of a block marker. */
  public static final long MARKER = Long.MIN_VALUE;

  private long row;
  private int block;
  private int from;
  private int to;
  private int leaving;
  private int arriving;
  private int arrivingBound;
  /** The row's weight (1 for rows without one); written in one byte where it is 1. */
  private double weight = 1;

  public Move set(long row, int block, int from, int to) {
    this.row = row;
    this.block = block;
    this.from = from;
    this.to = to;
    this.leaving = 0;
    this.arriving = 0;
    this.arrivingBound = 0;
    this.weight = 1;
    return this;
  }

  /** The moving row's weight (weighted rows; {@link #set} makes it 1). */
  public Move weight(double weight) {
    this.weight = weight;
    return this;
  }

  public double weight() {
    return weight;
  }

  /**
   * The move's effect on the working sets, from the round's start counts: {@code leaving} keys leave {@code from}
   * (no other row there uses them), {@code arriving} keys are new to {@code to}, and at most {@code arrivingBound}
   * when other moves of the same round are made too ({@code SwapGains.arrivingBound}).
   */
  public Move effect(int leaving, int arriving, int arrivingBound) {
    this.leaving = leaving;
    this.arriving = arriving;
    this.arrivingBound = arrivingBound;
    return this;
  }

  public int arrivingBound() {
    return arrivingBound;
  }

  public int leaving() {
    return leaving;
  }

  public int arriving() {
    return arriving;
  }

  public Move marker(int block) {
    return set(MARKER, block, 0, 0);
  }

  public boolean isMarker() {
    return row == MARKER;
  }

  public long row() {
    return row;
  }

  public int block() {
    return block;
  }

  public int from() {
    return from;
  }

  public int to() {
    return to;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeLong(row);
    WritableUtils.writeVInt(out, block);
    WritableUtils.writeVInt(out, from);
    WritableUtils.writeVInt(out, to);
    WritableUtils.writeVInt(out, leaving);
    WritableUtils.writeVInt(out, arriving);
    WritableUtils.writeVInt(out, arrivingBound);
    writeWeight(out, weight);
  }

  /** A row's weight: one byte where it is 1 (every row without a weight), else a flag and the double. */
  static void writeWeight(DataOutput out, double weight) throws IOException {
    if (weight == 1) {
      out.writeByte(0);
    } else {
      out.writeByte(1);
      out.writeDouble(weight);
    }
  }

  /** A weight as {@link #writeWeight} wrote it. */
  static double readWeight(DataInput in) throws IOException {
    return in.readByte() == 0 ? 1 : in.readDouble();
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    row = in.readLong();
    block = WritableUtils.readVInt(in);
    from = WritableUtils.readVInt(in);
    to = WritableUtils.readVInt(in);
    leaving = WritableUtils.readVInt(in);
    arriving = WritableUtils.readVInt(in);
    arrivingBound = WritableUtils.readVInt(in);
    weight = readWeight(in);
  }

  @Override
  public String toString() {
    return isMarker() ? "marker@" + block : row + "@" + block + ":" + from + "->" + to;
  }
}
