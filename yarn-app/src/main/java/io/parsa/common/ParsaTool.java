package io.parsa.common;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Set;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.HelpFormatter;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.util.Tool;

/**
 * Base of every step: a Hadoop {@link Tool} (so {@code -D}, {@code -conf}, {@code -libjars} work through
 * {@link org.apache.hadoop.util.ToolRunner}) whose own options are parsed with commons-cli.
 *
 * <p>Exit codes: 0 success, 1 the step ran and failed, 2 bad usage or bad input (the message says why).
 */
public abstract class ParsaTool extends Configured implements Tool {

  /** Exit code for a usage or input error. */
  public static final int EXIT_USAGE = 2;

  /** The step's name as typed after {@code bin/parsa}. */
  protected abstract String name();

  /** One sentence for {@code --help}. */
  protected abstract String description();

  /** The step's options; {@code --help} is added automatically. */
  protected abstract Options options();

  /**
   * Long names of the options the step cannot run without, marked "(required)" in {@code --help} and checked
   * before {@link #run(CommandLine)}. Options whose description already says "(required" count as well.
   */
  protected Set<String> requiredOptions() {
    return Set.of();
  }

  /** Runs the step with parsed options; returns the exit code. */
  protected abstract int run(CommandLine cl) throws Exception;

  @Override
  public final int run(String[] args) throws Exception {
    Options options = options();
    options.addOption(Option.builder("h").longOpt("help").desc("print this help and exit").build());
    options.addOption(Option.builder().longOpt("verbose")
        .desc("print stack traces of failures on the console (same as -D " + ConsoleLog.VERBOSE + "=true)").build());
    CommandLine cl;
    try {
      cl = new DefaultParser().parse(options, args);
    } catch (ParseException e) {
      System.err.println(name() + ": " + e.getMessage());
      printHelp(options, new PrintWriter(System.err, true));
      return EXIT_USAGE;
    }
    if (cl.hasOption("help")) {
      printHelp(options, new PrintWriter(System.out, true));
      return 0;
    }
    for (Option o : options.getOptions()) {
      if (isRequired(o) && !cl.hasOption(o.getLongOpt())) {
        System.err.println(name() + ": missing required option --" + o.getLongOpt()
            + " (parsa " + name() + " --help lists the options)");
        return EXIT_USAGE;
      }
    }
    if (!cl.getArgList().isEmpty()) {
      System.err.println(name() + ": unexpected arguments " + cl.getArgList());
      printHelp(options, new PrintWriter(System.err, true));
      return EXIT_USAGE;
    }
    if (cl.hasOption("verbose") && getConf() != null) {
      getConf().setBoolean(ConsoleLog.VERBOSE, true);
    }
    try {
      return run(cl);
    } catch (UsageException e) {
      // the message alone: it names the file, line and what was expected; the trace is in the log file
      System.err.println(name() + ": " + e.getMessage());
      if (e instanceof BadRecordException) {
        System.err.println(name() + ": input rejected" + ConsoleLog.logHint());
      }
      if (getConf() != null && getConf().getBoolean(ConsoleLog.VERBOSE, false)) {
        e.printStackTrace(System.err);
      }
      return EXIT_USAGE;
    }
  }

  private boolean isRequired(Option o) {
    return o.getLongOpt() != null && (requiredOptions().contains(o.getLongOpt())
        || (o.getDescription() != null && o.getDescription().contains("(required")));
  }

  private void printHelp(Options options, PrintWriter out) {
    // mark the required options, once
    Options marked = new Options();
    for (Option o : options.getOptions()) {
      Option c = (Option) o.clone();
      if (isRequired(o) && !o.getDescription().contains("(required")) {
        c.setDescription(o.getDescription() + " (required)");
      }
      marked.addOption(c);
    }
    options = marked;
    HelpFormatter f = new HelpFormatter();
    f.setWidth(110);
    f.printHelp(out, 110, "parsa " + name() + " [generic Hadoop options] [options]",
        description() + "\n\n", options, 2, 4,
        "\nGeneric Hadoop options (-D key=value, -conf file, -libjars jars, -fs uri) go before the step's options.",
        false);
    out.flush();
  }

  // ---- small typed option helpers -------------------------------------------------------------

  /** A required option's value, or a {@link UsageException} naming it. */
  protected static String required(CommandLine cl, String opt) {
    String v = cl.getOptionValue(opt);
    if (v == null) {
      throw new UsageException("missing required option --" + opt);
    }
    return v;
  }

  /** An integer option, checked to be at least {@code min}. */
  protected static int intOpt(CommandLine cl, String opt, int dflt, int min) {
    String v = cl.getOptionValue(opt);
    if (v == null) {
      return dflt;
    }
    try {
      int x = Integer.parseInt(v.trim());
      if (x < min) {
        throw new UsageException("--" + opt + " must be at least " + min + ", got " + x);
      }
      return x;
    } catch (NumberFormatException e) {
      throw new UsageException("--" + opt + " expects an integer, got '" + v + "'");
    }
  }

  /** A long option, checked to be at least {@code min}. */
  protected static long longOpt(CommandLine cl, String opt, long dflt, long min) {
    String v = cl.getOptionValue(opt);
    if (v == null) {
      return dflt;
    }
    try {
      long x = Long.parseLong(v.trim());
      if (x < min) {
        throw new UsageException("--" + opt + " must be at least " + min + ", got " + x);
      }
      return x;
    } catch (NumberFormatException e) {
      throw new UsageException("--" + opt + " expects an integer, got '" + v + "'");
    }
  }

  /** A floating-point option. */
  protected static double doubleOpt(CommandLine cl, String opt, double dflt) {
    String v = cl.getOptionValue(opt);
    if (v == null) {
      return dflt;
    }
    try {
      return Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new UsageException("--" + opt + " expects a number, got '" + v + "'");
    }
  }

  /** An option restricted to a fixed set of values. */
  protected static String choiceOpt(CommandLine cl, String opt, String dflt, String... allowed) {
    String v = cl.getOptionValue(opt, dflt);
    if (!Arrays.asList(allowed).contains(v)) {
      throw new UsageException("--" + opt + " must be one of " + Arrays.toString(allowed) + ", got '" + v + "'");
    }
    return v;
  }

  /**
   * A {@code -D} setting restricted to a fixed set of values ({@code dflt} where unset); any other is a usage error
   * naming the setting and the values it takes.
   */
  public static String choiceConf(org.apache.hadoop.conf.Configuration conf, String name, String dflt,
      String... allowed) {
    String v = conf.get(name, dflt);
    if (!Arrays.asList(allowed).contains(v)) {
      String last = allowed[allowed.length - 1];
      String others = String.join(", ", Arrays.copyOf(allowed, allowed.length - 1));
      throw new UsageException("-D " + name + " must be " + (others.isEmpty() ? last : others + " or " + last)
          + ", got '" + v + "'");
    }
    return v;
  }

  /** Option with a value. */
  protected static Option opt(String longOpt, String argName, String desc) {
    return Option.builder().longOpt(longOpt).hasArg().argName(argName).desc(desc).build();
  }

  /** Flag without a value. */
  protected static Option flag(String longOpt, String desc) {
    return Option.builder().longOpt(longOpt).desc(desc).build();
  }
}
