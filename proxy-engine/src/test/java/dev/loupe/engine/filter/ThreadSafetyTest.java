package dev.loupe.engine.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Flow;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One compiled filter shared by many threads gives each the answer it gives alone. */
@Timeout(60)
class ThreadSafetyTest {
  @Test
  void oneFilterManyThreads() throws Exception {
    Filter filter = Filter.parse("(~d even & ~b even-body & ~h 'x-n: \\d*0$') | ~u /odd/");
    List<Flow> flows = new ArrayList<>();
    boolean[] expected = new boolean[400];
    for (int i = 0; i < expected.length; i++) {
      String parity = i % 2 == 0 ? "even" : "odd";
      flows.add(FlowBuilder.empty()
          .request("GET", "https", parity + ".example", 443, "/" + parity + "/" + i, "X-N", String.valueOf(i))
          .response(200)
          .responseBody(parity + "-body " + "x".repeat(i * 10))
          .complete());
      expected[i] = i % 2 == 1 || i % 10 == 0;
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<boolean[]>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        results.add(pool.submit(() -> {
          boolean[] seen = new boolean[flows.size()];
          for (int round = 0; round < 50; round++) {
            for (int i = 0; i < flows.size(); i++) {
              seen[i] = filter.test(flows.get(i));
            }
          }
          return seen;
        }));
      }
      for (Future<boolean[]> r : results) {
        assertThat(r.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
