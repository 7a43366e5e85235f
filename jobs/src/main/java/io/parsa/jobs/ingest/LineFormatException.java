package io.parsa.jobs.ingest;

/**
 * A malformed text line, without file or line (the mapper adds them). Cheap: no stack trace, since skipping
 * bad lines under --skip-bad-records may create many.
 */
final class LineFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  LineFormatException(String problem) {
    super(problem, null, false, false);
  }
}
