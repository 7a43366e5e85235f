package io.parsa.jobs.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The rule by which a row's pieces become the row: keys in order, raw lines joined by newlines and counted. */
class RowPieceTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static RowPiece roundTrip(RowPiece p) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    p.write(new DataOutputStream(bytes));
    RowPiece q = new RowPiece();
    q.readFields(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    return q;
  }

  @Test
  void combiningLineByLineAndAppendingPiecesGiveTheSameRow() throws IOException {
    byte[] a = utf8("1 2");
    byte[] b = utf8("1 3");
    byte[] c = utf8("1 4");
    // the mapper's way: one piece takes three lines
    RowPiece combined = new RowPiece().addKey(2).addRawLine(a, 0, a.length).addKey(3).addRawLine(b, 0, b.length)
        .addKey(4).addRawLine(c, 0, c.length);
    // the reducer's way: pieces of one and two lines, and a key-only piece (a uedges target) between them
    RowPiece first = new RowPiece().setKeys(2L).setRaw(a, a.length);
    RowPiece targetOnly = new RowPiece().setKeys(9L);
    RowPiece rest = new RowPiece().addKey(3).addRawLine(b, 0, b.length).addKey(4).addRawLine(c, 0, c.length);
    RowPiece row = new RowPiece().append(roundTrip(first)).append(roundTrip(targetOnly)).append(roundTrip(rest));

    assertEquals("1 2\n1 3\n1 4", new String(combined.raw(), StandardCharsets.UTF_8));
    assertEquals(3, combined.rawLines());
    assertEquals(new String(combined.raw(), StandardCharsets.UTF_8), new String(row.raw(), StandardCharsets.UTF_8));
    assertEquals(3, row.rawLines());
    assertArrayEquals(new long[] {2, 9, 3, 4}, Arrays.copyOf(row.keyArray(), row.numKeys()));
  }

  @Test
  void appendingToAClearedPieceCopiesIt() throws IOException {
    byte[] line = utf8("1 5:1 7:2");
    RowPiece libsvm = roundTrip(new RowPiece().setKeys(5L, 7L).setRaw(line, line.length));
    RowPiece row = new RowPiece().setKeys(99L).setRaw(utf8("old"), 3).clear().append(libsvm);
    assertEquals("1 5:1 7:2", new String(row.raw(), StandardCharsets.UTF_8));
    assertEquals(1, row.rawLines());
    assertArrayEquals(new long[] {5, 7}, Arrays.copyOf(row.keyArray(), row.numKeys()));
  }
}
