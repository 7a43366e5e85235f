package io.parsa.yarn.rpc;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.ECPublicKeySpec;
import java.util.Date;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.slf4j.LoggerFactory;

/**
 * Mutual TLS 1.3 on every RPC connection of one application (scheduler and neighbor-set protocols), keyed by the
 * application's secret.
 *
 * <p>Every process of the application holds the 256-bit secret (shipped in YARN credentials, never on a command
 * line). From it each derives the same P-256 key pair: the private scalar is HMAC-SHA256(secret, label) reduced into
 * [1, n−1]. Each side presents a self-signed certificate for that key and accepts a peer only if the peer's
 * certificate carries the same public key, so a TLS handshake succeeds only between holders of the secret, in both
 * directions, and everything after it is encrypted and integrity-protected (AES-GCM or ChaCha20-Poly1305). A sniffer
 * learns nothing; a process without the secret cannot complete a handshake, let alone send a request. Certificates
 * differ between processes (ECDSA signatures are randomised); only the key is pinned, so no certificate has to be
 * distributed. See docs/partition-u.md ("Security") for why this rather than Hadoop IPC with SASL.
 */
public final class RpcSecurity {
  private static final String LABEL = "parsa-rpc-tls-p256-v1";
  private static final Map<String, RpcSecurity> CACHE = new ConcurrentHashMap<>();
  private static final AtomicBoolean WARMED = new AtomicBoolean();

  private final PublicKey publicKey;
  private final SslContext server;
  private final SslContext client;

  private final PrivateKey privateKey;

  private RpcSecurity(String secret) throws GeneralSecurityException, SSLException {
    this(scalarOf(secret));
  }

  private static BigInteger scalarOf(String secret) throws GeneralSecurityException {
    BigInteger n = ECNamedCurveTable.getByName("secp256r1").getN();
    return new BigInteger(1, hmac(secret.getBytes(StandardCharsets.UTF_8), LABEL))
        .mod(n.subtract(BigInteger.ONE)).add(BigInteger.ONE);
  }

  private RpcSecurity(BigInteger d) throws GeneralSecurityException, SSLException {
    X9ECParameters curve = ECNamedCurveTable.getByName("secp256r1");
    org.bouncycastle.math.ec.ECPoint q = curve.getG().multiply(d).normalize();
    AlgorithmParameters ap = AlgorithmParameters.getInstance("EC");
    ap.init(new ECGenParameterSpec("secp256r1"));
    ECParameterSpec spec = ap.getParameterSpec(ECParameterSpec.class);
    KeyFactory kf = KeyFactory.getInstance("EC");
    this.privateKey = kf.generatePrivate(new ECPrivateKeySpec(d, spec));
    this.publicKey = kf.generatePublic(new ECPublicKeySpec(
        new ECPoint(q.getAffineXCoord().toBigInteger(), q.getAffineYCoord().toBigInteger()), spec));
    X509Certificate cert = selfSigned(privateKey, publicKey);
    PinnedKey trust = new PinnedKey(publicKey);
    // the key handed over as it is: given the key and certificate, Netty would store them in a password-protected
    // PKCS#12 key store and read them back, two key derivations of 10,000 rounds per context (0.13 s of every
    // partition-u's start-up on news20, async-profiler)
    OwnKey own = new OwnKey(privateKey, cert);
    this.server = SslContextBuilder.forServer(own).sslProvider(SslProvider.JDK)
        .protocols("TLSv1.3").clientAuth(ClientAuth.REQUIRE).trustManager(trust).build();
    this.client = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).protocols("TLSv1.3")
        .keyManager(own).trustManager(trust).build();
  }

  /** The TLS setup for the application holding {@code secret} (derived once per secret and JVM). */
  public static RpcSecurity forSecret(String secret) {
    if (secret == null || secret.isEmpty()) {
      throw new IllegalArgumentException("the RPC secret is missing");
    }
    return CACHE.computeIfAbsent(secret, s -> {
      try {
        return new RpcSecurity(s);
      } catch (GeneralSecurityException | SSLException e) {
        throw new IllegalStateException("cannot set up TLS for the application's RPC: " + e, e);
      }
    });
  }

  /**
   * The TLS setup from the application's private key alone, as {@link #encodedPrivateKey()} encodes it (PKCS#8). A
   * container given only this key can talk to every other process of the application but cannot recover the
   * secret it was derived from (an HMAC output), hence cannot mint request tokens ({@link Tokens}).
   */
  public static RpcSecurity forEncodedKey(byte[] pkcs8) {
    if (pkcs8 == null || pkcs8.length == 0) {
      throw new IllegalArgumentException("the RPC key is missing");
    }
    try {
      PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(pkcs8));
      if (!(key instanceof java.security.interfaces.ECPrivateKey)) {
        throw new IllegalArgumentException("the RPC key is not an EC key");
      }
      BigInteger d = ((java.security.interfaces.ECPrivateKey) key).getS();
      BigInteger n = ECNamedCurveTable.getByName("secp256r1").getN();
      if (!((java.security.interfaces.ECPrivateKey) key).getParams().getOrder().equals(n)
          || d.signum() <= 0 || d.compareTo(n) >= 0) {
        throw new IllegalArgumentException("the RPC key is not a P-256 private key");
      }
      return new RpcSecurity(d);
    } catch (GeneralSecurityException | SSLException e) {
      throw new IllegalArgumentException("cannot read the RPC key: " + e, e);
    }
  }

  /**
   * Starts, on a daemon thread, what the first {@link #forSecret} of this JVM would otherwise do on the caller's
   * critical path: loading and initialising the curve, certificate and TLS classes (about 1.4 s in a fresh JVM on
   * two cores, against 0.08 s once warm), with a throwaway secret whose setup is not kept, and one TLS handshake
   * between its own client and server engines in memory. For a pipeline that runs partition-u in this JVM, called
   * while the steps before it (ingest) run. Once per JVM; failures are only logged, the real setup reports its own.
   */
  public static void warmUpInBackground() {
    if (WARMED.getAndSet(true)) {
      return;
    }
    Thread t = new Thread(() -> {
      try {
        RpcSecurity s = new RpcSecurity(scalarOf(Secrets.generate()));
        handshakeInMemory(s.clientEngine(), s.serverEngine());
      } catch (Exception | LinkageError e) {
        LoggerFactory.getLogger(RpcSecurity.class).debug("TLS warm-up failed (harmless): {}", e.toString());
      }
    }, "rpc-tls-warm-up");
    t.setDaemon(true);
    t.start();
  }

  SSLEngine clientEngine() {
    return client.newEngine(ByteBufAllocator.DEFAULT);
  }

  SSLEngine serverEngine() {
    return server.newEngine(ByteBufAllocator.DEFAULT);
  }

  /** Runs a TLS handshake between two engines through byte buffers; true if both finished it. */
  static boolean handshakeInMemory(SSLEngine client, SSLEngine server) throws SSLException {
    int net = Math.max(client.getSession().getPacketBufferSize(), server.getSession().getPacketBufferSize());
    int app = Math.max(client.getSession().getApplicationBufferSize(), server.getSession().getApplicationBufferSize());
    ByteBuffer toServer = ByteBuffer.allocate(4 * net);
    ByteBuffer toClient = ByteBuffer.allocate(4 * net);
    ByteBuffer sink = ByteBuffer.allocate(4 * app);
    ByteBuffer empty = ByteBuffer.allocate(0);
    client.beginHandshake();
    server.beginHandshake();
    for (int step = 0; step < 100; step++) {
      if (done(client) && done(server)) {
        return true;
      }
      client.wrap(empty, toServer);
      server.wrap(empty, toClient);
      toServer.flip();
      toClient.flip();
      server.unwrap(toServer, sink);
      client.unwrap(toClient, sink);
      toServer.compact();
      toClient.compact();
      sink.clear();
      runTasks(client);
      runTasks(server);
    }
    return false;
  }

  private static boolean done(SSLEngine e) {
    HandshakeStatus h = e.getHandshakeStatus();
    return h == HandshakeStatus.NOT_HANDSHAKING || h == HandshakeStatus.FINISHED;
  }

  private static void runTasks(SSLEngine e) {
    Runnable task;
    while ((task = e.getDelegatedTask()) != null) {
      task.run();
    }
  }

  /** The application's TLS private key in PKCS#8 form, for {@link #forEncodedKey(byte[])}. */
  public byte[] encodedPrivateKey() {
    return privateKey.getEncoded();
  }

  /** The public key every peer of this application must present. */
  public PublicKey publicKey() {
    return publicKey;
  }

  /** Puts the server side of the handshake first in an accepted channel's pipeline. */
  void secureServerChannel(SocketChannel ch) {
    ch.pipeline().addFirst("tls", server.newHandler(ch.alloc()));
  }

  /** Puts the client side of the handshake first in a connecting channel's pipeline. */
  void secureClientChannel(SocketChannel ch, String host, int port) {
    ch.pipeline().addFirst("tls", client.newHandler(ch.alloc(), host, port));
  }

  private static byte[] hmac(byte[] key, String label) throws GeneralSecurityException {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return mac.doFinal(label.getBytes(StandardCharsets.UTF_8));
  }

  private static X509Certificate selfSigned(PrivateKey key, PublicKey pub) throws GeneralSecurityException {
    X500Name name = new X500Name("CN=parsa-rpc");
    long now = System.currentTimeMillis();
    // Validity is not what authenticates the peer (the pinned key is); a wide window tolerates clock skew.
    Date from = new Date(now - 24L * 3600 * 1000);
    Date to = new Date(now + 3650L * 24 * 3600 * 1000);
    try {
      return new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(name,
          BigInteger.valueOf(now), from, to, name, pub).build(new JcaContentSignerBuilder("SHA256withECDSA")
          .build(key)));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException("cannot sign the RPC certificate", e);
    }
  }

  /** Presents the application's key and its self-signed certificate, the only key this side holds, for EC key types. */
  private static final class OwnKey extends X509ExtendedKeyManager {
    private static final String ALIAS = "parsa-rpc";
    private final PrivateKey key;
    private final X509Certificate[] chain;

    OwnKey(PrivateKey key, X509Certificate cert) {
      this.key = key;
      this.chain = new X509Certificate[] {cert};
    }

    private static boolean ec(String keyType) {
      return keyType != null && (keyType.equals("EC") || keyType.startsWith("EC_"));
    }

    private static String alias(String... keyTypes) {
      if (keyTypes != null) {
        for (String t : keyTypes) {
          if (ec(t)) {
            return ALIAS;
          }
        }
      }
      return null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return ec(keyType) ? new String[] {ALIAS} : null;
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
      return alias(keyTypes);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
      return alias(keyTypes);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return ec(keyType) ? new String[] {ALIAS} : null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return alias(keyType);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
      return alias(keyType);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return ALIAS.equals(alias) ? chain.clone() : null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return ALIAS.equals(alias) ? key : null;
    }
  }

  /** Accepts exactly the peers whose certificate holds the application's public key (and was signed by it). */
  private static final class PinnedKey extends X509ExtendedTrustManager {
    private final PublicKey expected;

    PinnedKey(PublicKey expected) {
      this.expected = expected;
    }

    private void check(X509Certificate[] chain) throws CertificateException {
      if (chain == null || chain.length == 0) {
        throw new CertificateException("the peer presented no certificate");
      }
      X509Certificate peer = chain[0];
      if (!MessageDigest.isEqual(expected.getEncoded(), peer.getPublicKey().getEncoded())) {
        throw new CertificateException("the peer's key is not this application's RPC key");
      }
      try {
        peer.verify(expected);
      } catch (GeneralSecurityException e) {
        throw new CertificateException("the peer's certificate is not signed by this application's RPC key", e);
      }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      check(chain);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
