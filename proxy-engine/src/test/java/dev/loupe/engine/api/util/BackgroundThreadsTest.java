package dev.loupe.engine.api.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Background threads really run at a lower nice value on Linux with JDK 22+ (read back from
 * {@code /proc/self/task/TID/stat}), only they do, and nothing is raised. Run on JDK 17 (no foreign function
 * API) the helper must say it did nothing and change nothing. To see the lowering, run the test JVM below
 * nice 19 (at 19 there is nothing lower): {@code nice -n 5 mvn ... -Djvm=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}.
 */
@Timeout(30)
class BackgroundThreadsTest {
  @TempDir Path dir;

  private static boolean linux() {
    return Files.isDirectory(Path.of("/proc/self/task"));
  }

  private static int processNice() {
    return BackgroundThreads.processNice().orElseThrow();
  }

  private static int ownNice() {
    return BackgroundThreads.niceOf(BackgroundThreads.currentTid().orElseThrow()).orElseThrow();
  }

  @Test
  void aFactoryThreadLowersItsOwnNiceValueAndNoOtherThreads() throws Exception {
    assumeTrue(linux(), "per-thread nice values are Linux's");
    int process = processNice();
    int callerBefore = ownNice();
    CompletableFuture<int[]> seen = new CompletableFuture<>();
    Thread t = BackgroundThreads.factory("loupe-test-background", true).newThread(() -> {
      int tid = BackgroundThreads.currentTid().orElseThrow();
      seen.complete(new int[] {tid, BackgroundThreads.niceOf(tid).orElseThrow()});
    });
    assertThat(t.getName()).isEqualTo("loupe-test-background-1");
    assertThat(t.isDaemon()).isTrue();
    t.start();
    int[] tidAndNice = seen.get(10, TimeUnit.SECONDS);
    t.join(10_000);

    assertThat(ownNice()).as("the caller keeps its priority").isEqualTo(callerBefore);
    assertThat(BackgroundThreads.processNice()).hasValue(process);
    if (Runtime.version().feature() >= 22 && process < 19) {
      assertThat(tidAndNice[1]).as("the background thread's nice value")
          .isEqualTo(Math.min(19, process + BackgroundThreads.NICER));
    } else {
      assertThat(tidAndNice[1]).as("nothing to lower with: unchanged").isEqualTo(callerBefore);
    }
  }

  @Test
  void lowerCurrentThreadSaysWhatItDidAndNeverRaises() throws Exception {
    assumeTrue(linux(), "per-thread nice values are Linux's");
    int process = processNice();
    CompletableFuture<Object[]> result = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      int before = ownNice();
      boolean lowered = BackgroundThreads.lowerCurrentThread();
      int after = ownNice();
      boolean again = BackgroundThreads.lowerCurrentThread(); // already lower: stays, still true
      result.complete(new Object[] {before, lowered, after, again, ownNice()});
    });
    t.start();
    Object[] r = result.get(10, TimeUnit.SECONDS);
    int before = (int) r[0];
    int after = (int) r[2];
    assertThat(after).as("never raised").isGreaterThanOrEqualTo(before);
    boolean canLower = Runtime.version().feature() >= 22 && process < 19;
    assertThat((boolean) r[1]).isEqualTo(canLower);
    assertThat((boolean) r[3]).isEqualTo(canLower);
    assertThat((int) r[4]).isEqualTo(after);
    if (canLower) {
      assertThat(after).isEqualTo(Math.min(19, process + BackgroundThreads.NICER));
    } else {
      assertThat(after).isEqualTo(before);
    }
  }

  @Test
  void aThreadAlreadyLowerThanTheTargetIsLeftAlone() throws Exception {
    assumeTrue(linux() && Runtime.version().feature() >= 22 && processNice() < 18,
        "needs the foreign function API and room below the target");
    CompletableFuture<int[]> result = new CompletableFuture<>();
    Thread t = BackgroundThreads.factory("loupe-test-outer", false).newThread(() -> {
      // a thread made by a background thread starts at its nice value: lowering it again must not add up
      // (nor may a thread at 19 be raised back to the target)
      Thread inner = BackgroundThreads.factory("loupe-test-inner", false).newThread(() -> {
        result.complete(new int[] {ownNice()});
      });
      inner.start();
    });
    t.start();
    int nice = result.get(10, TimeUnit.SECONDS)[0];
    assertThat(nice).isEqualTo(Math.min(19, processNice() + BackgroundThreads.NICER));
  }

  @Test
  void fewerStepsGoLessFarDown() throws Exception {
    assumeTrue(linux(), "per-thread nice values are Linux's");
    int process = processNice();
    CompletableFuture<Integer> nice = new CompletableFuture<>();
    new Thread(() -> {
      BackgroundThreads.lowerCurrentThread(4);
      nice.complete(ownNice());
    }).start();
    int expected = Runtime.version().feature() >= 22 && process < 19 ? Math.min(19, process + 4) : process;
    assertThat(nice.get(10, TimeUnit.SECONDS)).isEqualTo(expected);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> BackgroundThreads.lowerCurrentThread(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void niceIsFieldNineteenEvenWithParenthesesInTheName() throws Exception {
    Path stat = dir.resolve("stat");
    // pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime
    // cstime priority nice ...
    Files.writeString(stat, "4242 (a b) (c)) S 1 4242 4242 0 -1 4194560 10 0 0 0 5 6 0 0 30 10 1 0 100\n");
    assertThat(BackgroundThreads.niceIn(stat)).hasValue(10);
    Files.writeString(stat, "4242 (java) R 1 4242 4242 0 -1 4194560 10 0 0 0 5 6 0 0 20 0 1 0 100\n");
    assertThat(BackgroundThreads.niceIn(stat)).hasValue(0);
    Files.writeString(stat, "garbage");
    assertThat(BackgroundThreads.niceIn(stat)).isEqualTo(OptionalInt.empty());
  }
}
