package io.parsa.yarn.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.rpc.NeighborSetProtocol;
import io.parsa.avro.rpc.PullRequest;
import io.parsa.avro.rpc.PushRequest;
import io.parsa.yarn.server.NeighborSetService;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.ipc.Server;
import org.apache.avro.ipc.netty.NettyTransceiver;
import org.apache.avro.ipc.specific.SpecificRequestor;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The application's RPC over mutual TLS: holders of the secret talk, nobody else does, and the wire is opaque. */
class RpcSecurityTest {
  private static final String SECRET = "0123456789abcdef0123456789abcdef-test-secret";
  private static final int K = 4;

  private Server server;

  @BeforeEach
  void start() throws Exception {
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Path ckpt = io.parsa.yarn.TestDirs.fresh("tls");
    NeighborSetService service = new NeighborSetService(0, 1, K, SECRET, 100, fs, ckpt);
    server = Rpc.serve(NeighborSetProtocol.class, service, "127.0.0.1", RpcSecurity.forSecret(SECRET));
  }

  @AfterEach
  void stop() {
    Rpc.closeAsync(server);
  }

  @Test
  void aHolderOfTheEncodedKeyAloneTalksToSecretHoldersButDoesNotHoldTheSecret() throws Exception {
    byte[] pkcs8 = RpcSecurity.forSecret(SECRET).encodedPrivateKey();
    assertFalse(contains(pkcs8, SECRET.getBytes(StandardCharsets.UTF_8)), "the encoded key carries the secret");
    RpcSecurity keyOnly = RpcSecurity.forEncodedKey(pkcs8);
    assertEquals(RpcSecurity.forSecret(SECRET).publicKey(), keyOnly.publicKey());
    try (Rpc.Client<NeighborSetProtocol> c = Rpc.connect(NeighborSetProtocol.class,
        "127.0.0.1:" + server.getPort(), 5000, keyOnly)) {
      assertEquals(List.of(0L), Packed.wordList(c.proxy().pull(new PullRequest(Tokens.worker(SECRET, 2), 2,
          Packed.keys(List.of(7L)), -1)).getBits()));
    }
    assertThrows(IllegalArgumentException.class, () -> RpcSecurity.forEncodedKey(new byte[0]));
    assertThrows(IllegalArgumentException.class, () -> RpcSecurity.forEncodedKey(new byte[] {1, 2, 3}));
    byte[] otherKey = RpcSecurity.forSecret("another application").encodedPrivateKey();
    assertThrows(Exception.class, () -> {
      try (Rpc.Client<NeighborSetProtocol> c = Rpc.connect(NeighborSetProtocol.class,
          "127.0.0.1:" + server.getPort(), 5000, RpcSecurity.forEncodedKey(otherKey))) {
        c.proxy().pull(new PullRequest(Tokens.worker(SECRET, 2), 2, Packed.keys(List.of(7L)), -1));
      }
    });
  }

  /** The warm-up's in-memory handshake is a real one: it completes between holders of one secret only. */
  @Test
  void inMemoryHandshakeCompletesOnlyBetweenHoldersOfTheSameSecret() throws Exception {
    RpcSecurity a = RpcSecurity.forSecret(SECRET);
    RpcSecurity b = RpcSecurity.forSecret(SECRET + "-other");
    assertTrue(RpcSecurity.handshakeInMemory(a.clientEngine(), a.serverEngine()));
    assertThrows(javax.net.ssl.SSLException.class,
        () -> RpcSecurity.handshakeInMemory(b.clientEngine(), a.serverEngine()));
    RpcSecurity.warmUpInBackground(); // and the warm-up itself neither throws nor touches the cache
    assertEquals(a.publicKey(), RpcSecurity.forSecret(SECRET).publicKey());
  }

  @Test
  void sameKeyPairFromTheSameSecretAndADifferentOneFromAnother() {
    assertEquals(RpcSecurity.forSecret(SECRET).publicKey(), RpcSecurity.forSecret(new String(SECRET)).publicKey());
    assertFalse(RpcSecurity.forSecret(SECRET).publicKey().equals(RpcSecurity.forSecret("other").publicKey()));
  }

  @Test
  void holdersOfTheSecretTalkAndTheWireShowsNeitherTheSecretNorTheData() throws Exception {
    try (Relay relay = new Relay(server.getPort());
        Rpc.Client<NeighborSetProtocol> c = Rpc.connect(NeighborSetProtocol.class, "127.0.0.1:" + relay.port(),
            5000, RpcSecurity.forSecret(SECRET))) {
      long key = 0x5EC12E7C0FFEEL;
      assertTrue(c.proxy().push(new PushRequest(Tokens.worker(SECRET, 0), 0, 1L, false,
          Packed.keys(List.of(key)), Packed.words(List.of(0b1010L)), -1))
          .getApplied());
      assertEquals(List.of(0b1010L), Packed.wordList(c.proxy().pull(new PullRequest(Tokens.worker(SECRET, 0), 0,
          Packed.keys(List.of(key)), -1)).getBits()));
      byte[] wire = relay.recorded();
      assertTrue(wire.length > 500, "the relay saw the conversation (" + wire.length + " bytes)");
      assertFalse(contains(wire, SECRET.getBytes(StandardCharsets.UTF_8)), "the secret crossed the wire in clear");
      assertFalse(contains(wire, Tokens.worker(SECRET, 0).getBytes(StandardCharsets.UTF_8)),
          "the worker's token crossed the wire in clear");
      assertFalse(contains(wire, "NeighborSetProtocol".getBytes(StandardCharsets.UTF_8)),
          "the Avro handshake crossed the wire in clear");
      ByteArrayOutputStream encodedKey = new ByteArrayOutputStream();
      BinaryEncoder enc = EncoderFactory.get().binaryEncoder(encodedKey, null);
      enc.writeLong(key);
      enc.flush();
      assertFalse(contains(wire, encodedKey.toByteArray()), "the key crossed the wire in clear");
    }
  }

  @Test
  void aClientWithoutTheSecretCannotCallAtAll() {
    assertThrows(Exception.class, () -> {
      try (Rpc.Client<NeighborSetProtocol> c = Rpc.connect(NeighborSetProtocol.class,
          "127.0.0.1:" + server.getPort(), 5000, RpcSecurity.forSecret("a guess"))) {
        c.proxy().pull(new PullRequest("a guess", 0, Packed.keys(List.of(1L)), -1));
      }
    });
  }

  @Test
  void aPlaintextClientCannotCallAtAll() {
    assertThrows(Exception.class, () -> {
      NettyTransceiver t = new NettyTransceiver(new InetSocketAddress("127.0.0.1", server.getPort()), 5000);
      try {
        SpecificRequestor.getClient(NeighborSetProtocol.class, t).pull(new PullRequest(SECRET, 0,
            Packed.keys(List.of(1L)), -1));
      } finally {
        t.close();
      }
    });
  }

  private static boolean contains(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /** A TCP relay on loopback that forwards one connection to the server and records every byte both ways. */
  private static final class Relay implements AutoCloseable {
    private final ServerSocket listen;
    private final ByteArrayOutputStream seen = new ByteArrayOutputStream();
    private final Thread acceptor;

    Relay(int targetPort) throws Exception {
      listen = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
      acceptor = new Thread(() -> {
        try (Socket in = listen.accept(); Socket out = new Socket("127.0.0.1", targetPort)) {
          Thread back = pump(out.getInputStream(), in.getOutputStream());
          pump(in.getInputStream(), out.getOutputStream()).join();
          back.join();
        } catch (Exception e) {
          // the test closes the relay; a broken pipe at the end is expected
        }
      }, "tls-test-relay");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return listen.getLocalPort();
    }

    private Thread pump(InputStream from, OutputStream to) {
      Thread t = new Thread(() -> {
        byte[] buf = new byte[8192];
        try {
          for (int n; (n = from.read(buf)) > 0; ) {
            synchronized (seen) {
              seen.write(buf, 0, n);
            }
            to.write(buf, 0, n);
            to.flush();
          }
        } catch (Exception e) {
          // connection closed
        }
      });
      t.setDaemon(true);
      t.start();
      return t;
    }

    byte[] recorded() {
      synchronized (seen) {
        return seen.toByteArray();
      }
    }

    @Override
    public void close() throws Exception {
      listen.close();
    }
  }
}
