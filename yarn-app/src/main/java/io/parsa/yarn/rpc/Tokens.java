package io.parsa.yarn.rpc;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Per-identity request tokens, in the manner of Hadoop's block and container tokens: an identifier ("worker/3",
 * "server/1", "master") and a password HMAC-SHA256(application secret, identifier). The password travels as the
 * request's {@code secret} field, inside the mutual-TLS channel, so it is a bearer token that no sniffer sees;
 * the receiving side recomputes it from the identity the request names and compares in constant time, so a
 * holder of worker 3's token cannot act as worker 5 or as the master. Identifiers do not include the application
 * attempt, so a replacement container for worker w is handed the same token as the one it replaces.
 */
public final class Tokens {

  /** Who is calling. */
  public enum Role { WORKER, SERVER, MASTER }

  private static final String LABEL = "parsa-rpc-token-v1/";

  private Tokens() {}

  /** The identifier a token is bound to: "worker/&lt;id&gt;", "server/&lt;id&gt;" or "master". */
  public static String identifier(Role role, int id) {
    switch (role) {
      case WORKER:
        return "worker/" + id;
      case SERVER:
        return "server/" + id;
      default:
        return "master";
    }
  }

  /** The token of {@code role}/{@code id} under {@code secret} (64 hex digits). */
  public static String derive(String secret, Role role, int id) {
    if (secret == null || secret.isEmpty()) {
      throw new IllegalArgumentException("the RPC secret is missing");
    }
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of().formatHex(
          mac.doFinal((LABEL + identifier(role, id)).getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available: " + e, e);
    }
  }

  public static String worker(String secret, int workerId) {
    return derive(secret, Role.WORKER, workerId);
  }

  public static String server(String secret, int serverId) {
    return derive(secret, Role.SERVER, serverId);
  }

  public static String master(String secret) {
    return derive(secret, Role.MASTER, 0);
  }

  /** True if {@code presented} is the token of {@code role}/{@code id}; constant-time comparison. */
  public static boolean verify(String secret, Role role, int id, CharSequence presented) {
    if (secret == null || secret.isEmpty() || presented == null) {
      return false;
    }
    return Secrets.matches(derive(secret, role, id), presented);
  }
}
