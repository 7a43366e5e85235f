package io.parsa.common;

/** A user error (bad option, bad or missing input, existing output): reported as a message, exit code 2. */
public class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UsageException(String message) {
    super(message);
  }

  public UsageException(String message, Throwable cause) {
    super(message, cause);
  }
}
