package io.parsa.train;

/**
 * Main class of a train-bench server container (a top-level class: the container's launch command goes through a
 * shell, where a nested class's {@code $} would be expanded).
 */
public final class TrainServerMain {
  private TrainServerMain() {}

  public static void main(String[] args) {
    TrainContainers.exit("server", args);
  }
}
