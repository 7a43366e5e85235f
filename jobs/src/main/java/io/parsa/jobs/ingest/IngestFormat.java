package io.parsa.jobs.ingest;

import io.parsa.common.UsageException;
import java.util.Locale;

/** The input formats ingest reads. */
public enum IngestFormat {
  /** libsvm / svmlight text: {@code label[,label...] [qid:n] idx:val ... [# comment]}. */
  LIBSVM,
  /** Directed edge list {@code u v}: row u holds u's out-neighbors. */
  EDGES,
  /** Undirected edge list {@code u v}: each line gives both directions. */
  UEDGES,
  /** Avro container files of GraphRow (for example an earlier ingest's blocks), re-blocked as given. */
  AVRO;

  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean isText() {
    return this != AVRO;
  }

  public boolean isEdgeList() {
    return this == EDGES || this == UEDGES;
  }

  public static IngestFormat parse(String s) {
    for (IngestFormat f : values()) {
      if (f.cliName().equals(s)) {
        return f;
      }
    }
    throw new UsageException("unknown format '" + s + "', expected libsvm, edges, uedges or avro");
  }
}
