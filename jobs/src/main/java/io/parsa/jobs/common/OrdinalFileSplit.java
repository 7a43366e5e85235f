package io.parsa.jobs.common;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/**
 * A split of one text input file that carries the file's ordinal (its index among all input files sorted by
 * path) and the 1-based number of the first line the split's reader returns, so that a split in the middle of
 * a file still numbers its lines as the whole file would.
 */
public class OrdinalFileSplit extends FileSplit {

  private int ordinal;
  private long firstLine = 1;
  private boolean wholeFile = true;

  /** For deserialisation. */
  public OrdinalFileSplit() {}

  /** The whole file as one split. */
  public OrdinalFileSplit(Path file, long length, String[] hosts, int ordinal) {
    super(file, 0, length, hosts);
    this.ordinal = ordinal;
  }

  /**
   * A byte range of a file.
   *
   * @param firstLine 1-based number of the first line that starts inside the range (see
   *     {@link LineNumberInputFormat}), or 0 if not known yet (the line-count pass)
   */
  public OrdinalFileSplit(Path file, long start, long length, String[] hosts, int ordinal, long firstLine) {
    super(file, start, length, hosts);
    this.ordinal = ordinal;
    this.firstLine = firstLine;
    this.wholeFile = false;
  }

  /** Index of this split's file among all input files of the job, sorted by path; 0-based. */
  public int ordinal() {
    return ordinal;
  }

  /** 1-based number of the first line this split returns (0: unknown). */
  public long firstLine() {
    return firstLine;
  }

  /** True if the split is its file's only split. */
  public boolean wholeFile() {
    return wholeFile;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    super.write(out);
    out.writeInt(ordinal);
    out.writeLong(firstLine);
    out.writeBoolean(wholeFile);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    super.readFields(in);
    ordinal = in.readInt();
    firstLine = in.readLong();
    wholeFile = in.readBoolean();
  }

  @Override
  public String toString() {
    return wholeFile ? getPath() + " (file #" + ordinal + ")"
        : getPath() + ":" + getStart() + "+" + getLength() + " (file #" + ordinal + ", from line " + firstLine + ")";
  }
}
