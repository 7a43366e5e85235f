package io.parsa.common;

/**
 * A malformed input record: names the file, the line (or record number) and what was expected, so the user
 * can find and fix it.
 */
public class BadRecordException extends UsageException {
  private static final long serialVersionUID = 1L;

  private final String file;
  private final long line;

  /**
   * @param file the input file
   * @param line 1-based line number (or record number for binary inputs)
   * @param problem what was wrong and what was expected
   */
  public BadRecordException(String file, long line, String problem) {
    super(file + ":" + line + ": " + problem);
    this.file = file;
    this.line = line;
  }

  public String file() {
    return file;
  }

  public long line() {
    return line;
  }
}
