package io.parsa.yarn.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The warning for a placement that left parts empty. */
class PartCountsTest {

  @Test
  void namesTheEmptyParts() {
    assertNull(PartCounts.emptyPartsWarning(new long[] {3, 1, 2}));
    assertEquals("2 of the 4 parts are EMPTY (part 1, 3): their shards will hold no rows, which breaks most "
        + "training jobs; use a smaller k or a balanced placement (parsa)",
        PartCounts.emptyPartsWarning(new long[] {5, 0, 2, 0}));
  }
}
