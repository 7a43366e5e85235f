package io.parsa.train;

/**
 * Main class of a train-bench worker container (a top-level class: the container's launch command goes through a
 * shell, where a nested class's {@code $} would be expanded).
 */
public final class TrainWorkerMain {
  private TrainWorkerMain() {}

  public static void main(String[] args) {
    TrainContainers.exit("worker", args);
  }
}
