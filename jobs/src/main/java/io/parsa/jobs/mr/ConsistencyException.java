package io.parsa.jobs.mr;

/** A job finished but its counters show records lost, duplicated or invalid: the step must fail. */
public class ConsistencyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConsistencyException(String message) {
    super(message);
  }
}
