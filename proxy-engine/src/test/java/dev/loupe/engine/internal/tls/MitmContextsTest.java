package dev.loupe.engine.internal.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.CertificateSource;
import dev.loupe.testing.TestPki;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link MitmContexts#prepare}: a context made ahead of the first lookup, once, and shared with it. */
@Timeout(60)
class MitmContextsTest {
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final List<String> minted = new CopyOnWriteArrayList<>();
  private final CertificateSource real = TestPki.shared().loupeSource();

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  @Test
  void prepareMintsBeforeAnyLookupAndTheLookupGetsThatContext() throws Exception {
    CountDownLatch mintedOnce = new CountDownLatch(1);
    MitmContexts contexts = new MitmContexts(host -> {
      minted.add(host);
      mintedOnce.countDown();
      return real.certificateFor(host);
    }, executor);

    contexts.prepare("Example.TEST.");

    assertThat(mintedOnce.await(30, TimeUnit.SECONDS)).as("minted without a lookup").isTrue();
    SslContext first = lookup(contexts, "example.test");
    SslContext second = lookup(contexts, "EXAMPLE.test");
    assertThat(first).isSameAs(second);
    assertThat(minted).containsExactly("example.test");
  }

  @Test
  void prepareTwiceAndALookupMeanwhileBuildOneContext() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    MitmContexts contexts = new MitmContexts(host -> {
      minted.add(host);
      try {
        release.await(30, TimeUnit.SECONDS); // still minting while the others ask
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return real.certificateFor(host);
    }, executor);

    contexts.prepare("a.test");
    contexts.prepare("a.test");
    Promise<SslContext> waiting = ImmediateEventExecutor.INSTANCE.newPromise();
    contexts.contextFor("a.test", waiting);
    assertThat(waiting.isDone()).isFalse();
    release.countDown();

    assertThat(waiting.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(waiting.getNow()).isSameAs(lookup(contexts, "a.test"));
    assertThat(minted).containsExactly("a.test");
  }

  @Test
  void prepareAfterCloseDoesNothing() throws Exception {
    MitmContexts contexts = new MitmContexts(host -> {
      minted.add(host);
      return real.certificateFor(host);
    }, executor);
    contexts.close();

    contexts.prepare("late.test");

    executor.shutdown();
    assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(minted).isEmpty();
  }

  private static SslContext lookup(MitmContexts contexts, String host) throws InterruptedException {
    Promise<SslContext> p = ImmediateEventExecutor.INSTANCE.newPromise();
    contexts.contextFor(host, p);
    assertThat(p.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.isSuccess()).as("lookup of %s: %s", host, p.cause()).isTrue();
    return p.getNow();
  }
}
