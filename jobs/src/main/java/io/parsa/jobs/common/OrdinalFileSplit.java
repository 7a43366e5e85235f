package io.parsa.jobs.common;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/** A whole-file split that also carries the file's ordinal: its index among all input files sorted by path. */
public class OrdinalFileSplit extends FileSplit {

  private int ordinal;

  /** For deserialisation. */
  public OrdinalFileSplit() {}

  public OrdinalFileSplit(Path file, long length, String[] hosts, int ordinal) {
    super(file, 0, length, hosts);
    this.ordinal = ordinal;
  }

  /** Index of this split's file among all input files of the job, sorted by path; 0-based. */
  public int ordinal() {
    return ordinal;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    super.write(out);
    out.writeInt(ordinal);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    super.readFields(in);
    ordinal = in.readInt();
  }

  @Override
  public String toString() {
    return getPath() + " (file #" + ordinal + ")";
  }
}
