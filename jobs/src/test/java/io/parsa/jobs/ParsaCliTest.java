package io.parsa.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** What the command line prints for --version, --help and missing options, and where. */
class ParsaCliTest {

  /** Exit code and both streams of one CLI call. */
  private record Result(int rc, String out, String err) {}

  private static Result cli(String... args) throws Exception {
    PrintStream savedOut = System.out;
    PrintStream savedErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int rc = ParsaCli.run(new Configuration(), args);
      return new Result(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(savedOut);
      System.setErr(savedErr);
    }
  }

  @Test
  void versionNamesTheBuildAndTheHadoopItRunsOn() throws Exception {
    Result r = cli("--version");
    assertEquals(0, r.rc());
    assertTrue(r.out().matches("parsa \\d+\\.\\d+\\.\\d+\\S* \\(Hadoop \\d\\S* at run time, built with \\d\\S*; "
        + "Avro \\d\\S*; Java \\S+\\)\\R"), r.out());
  }

  @Test
  void topLevelHelpGoesToStandardOutputAndNoArgumentsIsAUsageError() throws Exception {
    Result help = cli("--help");
    assertEquals(0, help.rc());
    assertTrue(help.out().contains("partition-v"), help.out());
    assertEquals("", help.err());
    Result none = cli();
    assertEquals(2, none.rc());
    assertTrue(none.err().startsWith("usage: parsa"), none.err());
  }

  @Test
  void everyRequiredOptionIsMarkedAndChecked() throws Exception {
    Result help = cli("partition-v", "--help");
    assertEquals(0, help.rc());
    for (String opt : new String[] {"--output", "--k"}) {
      String line = help.out().lines().filter(l -> l.trim().startsWith(opt + " ")).findFirst().orElseThrow();
      assertTrue(line.contains("(required)"), line);
    }
    String reducers = help.out().lines().filter(l -> l.contains("--reducers")).findFirst().orElseThrow();
    assertTrue(!reducers.contains("(required)"), reducers);

    for (String step : new String[] {"partition-u", "key-usage", "partition-v", "metrics", "reshuffle", "assign-baseline",
        "ingest", "pipeline", "generate", "export"}) {
      Result r = cli(step, "--help");
      assertTrue(r.out().contains("(required"), step + " marks its required options:\n" + r.out());
    }

    Result missing = cli("partition-v", "--k", "3");
    assertEquals(2, missing.rc());
    assertTrue(missing.err().contains("partition-v: missing required option --output"), missing.err());
    // the input is the key usage or the blocks with a u-assignment: either is required
    Result noInput = cli("partition-v", "--k", "3", "--output", "/nonexistent/v");
    assertEquals(2, noInput.rc());
    assertTrue(noInput.err().contains("missing required option --key-usage, or --blocks and --u-assignment"),
        noInput.err());
  }

  @Test
  void aUsageErrorIsOneMessageAndItsTraceOnlyWithVerbose() throws Exception {
    Result quiet = cli("ingest", "--input", "/nonexistent/parsa-input", "--output", "/nonexistent/parsa-out");
    assertEquals(2, quiet.rc());
    assertEquals("ingest: input /nonexistent/parsa-input matches no file or directory", quiet.err().strip());

    Result verbose = cli("--verbose", "ingest", "--input", "/nonexistent/parsa-input", "--output",
        "/nonexistent/parsa-out");
    assertEquals(2, verbose.rc());
    assertTrue(verbose.err().startsWith("ingest: input /nonexistent/parsa-input matches no file or directory"),
        verbose.err());
    assertTrue(verbose.err().contains("\tat io.parsa."), "stack trace with --verbose: " + verbose.err());
  }
}
