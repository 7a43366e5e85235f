package io.parsa.yarn.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import io.parsa.avro.GraphRow;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

/** Records read into a reused record after a huge one, their arrays dropped in between. */
class AvroReuseTest {

  private static List<Long> keys(long from, int n) {
    List<Long> ks = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ks.add(from + i);
    }
    return ks;
  }

  /**
   * A row of 200,000 keys, then short rows, read into one reused record: every row reads back exactly as written,
   * and no short row is read into the huge row's array (which Avro would clear to its whole capacity each time).
   */
  @Test
  void rowsAfterAHugeOneGetArraysOfTheirOwn() throws Exception {
    List<List<Long>> rows = List.of(keys(1, 3), keys(10, 200_000), keys(5, 2), keys(7, 0), keys(9, 4));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataFileWriter<GraphRow> w = new DataFileWriter<>(new SpecificDatumWriter<>(GraphRow.class))) {
      w.create(GraphRow.getClassSchema(), bytes);
      for (int i = 0; i < rows.size(); i++) {
        w.append(GraphRow.newBuilder().setId(i).setKeys(rows.get(i)).setWeight(null)
            .setRaw(ByteBuffer.allocate(0)).build());
      }
    }
    try (DataFileStream<GraphRow> in = new DataFileStream<>(new ByteArrayInputStream(bytes.toByteArray()),
        new SpecificDatumReader<>(GraphRow.class))) {
      GraphRow row = null;
      List<Long> huge = null;
      for (int i = 0; i < rows.size(); i++) {
        AvroReuse.dropArrays(row);
        row = in.next(row);
        assertEquals(i, row.getId());
        assertEquals(rows.get(i), row.getKeys(), "row " + i);
        if (i == 1) {
          huge = row.getKeys();
        } else if (huge != null) {
          assertNotSame(huge, row.getKeys(), "row " + i + " was read into the huge row's array");
        }
      }
    }
    AvroReuse.dropArrays(null); // nothing to drop
    AvroReuse.dropArrays("not a record");
  }
}
