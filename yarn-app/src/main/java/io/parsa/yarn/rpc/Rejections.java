package io.parsa.yarn.rpc;

import io.parsa.avro.rpc.RequestRejected;
import io.parsa.avro.rpc.SchedulerRejected;

/**
 * Builds the protocol's error records with their {@code reason} field set. (The generated one-argument
 * constructors take an opaque "value" and leave {@code reason} null, which Avro then cannot serialise.)
 */
public final class Rejections {

  private Rejections() {}

  public static RequestRejected server(String reason) {
    RequestRejected e = new RequestRejected();
    e.setReason(reason);
    return e;
  }

  public static SchedulerRejected master(String reason) {
    SchedulerRejected e = new SchedulerRejected();
    e.setReason(reason);
    return e;
  }
}
