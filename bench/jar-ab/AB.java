import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Paths;
import java.util.Arrays;

/**
 * AB &lt;dir&gt; &lt;reps&gt; &lt;jarA&gt; &lt;jarB&gt;: loads each jar (child-first for io.parsa and VRun) and alternates V-cycles
 * between them, A first in even rounds and B first in odd ones; the first three rounds are warm-up and not counted.
 * See bench/jar-ab/run.
 */
public class AB {
  private static final int WARM_UP = 3;

  /** Loads io.parsa and VRun from its own URLs first, everything else (Hadoop, Avro, fastutil) from the parent. */
  static final class ChildFirst extends URLClassLoader {
    ChildFirst(URL[] urls, ClassLoader parent) {
      super(urls, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.startsWith("io.parsa") && !name.equals("VRun")) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        return c != null ? c : findClass(name);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    String dir = args[0];
    int reps = Integer.parseInt(args[1]);
    URL classes = Paths.get(System.getProperty("jab.classes", ".")).toUri().toURL();
    Object[] runs = new Object[2];
    Method[] rep = new Method[2];
    for (int i = 0; i < 2; i++) {
      URL jar = Paths.get(args[2 + i]).toUri().toURL();
      Class<?> c = new ChildFirst(new URL[] {classes, jar}, AB.class.getClassLoader()).loadClass("VRun");
      runs[i] = c.getConstructor(String.class).newInstance(dir);
      rep[i] = c.getMethod("rep", int.class);
    }
    long[][] ms = new long[2][reps];
    for (int r = 0; r < reps; r++) {
      for (int i = 0; i < 2; i++) {
        int j = r % 2 == 0 ? i : 1 - i;
        long v = (Long) rep[j].invoke(runs[j], r);
        ms[j][r] = v / VRun.SCALE;
        if (r >= WARM_UP) {
          System.out.printf("rep %d %s %d ms, parts hash %d%n", r, j == 0 ? "A" : "B", ms[j][r], v % VRun.SCALE);
        }
      }
    }
    for (int i = 0; i < 2; i++) {
      long[] x = Arrays.copyOfRange(ms[i], WARM_UP, reps);
      Arrays.sort(x);
      System.out.printf("%s median %d ms, min %d ms%n", i == 0 ? "A" : "B", x[x.length / 2], x[0]);
    }
  }
}
