package dev.loupe.ui.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class StatusViewModelTest {
  @Test
  void countsRealTrafficAndShowsMemory() throws Exception {
    try (ProxyFixture proxy = ProxyFixture.start(); TestOrigin origin = TestOrigin.http();
        StatusViewModel vm = new StatusViewModel(proxy.store(), "127.0.0.1:" + proxy.port(),
            () -> 300L << 20, () -> 4L << 30)) {
      assertThat(vm.memoryProperty().get()).isEqualTo("Heap 300 MiB of 4.0 GiB · bodies 0 B");
      assertThat(vm.throughputProperty().get()).isEqualTo("0 req/s · 0 B/s");
      for (int i = 0; i < 5; i++) {
        HttpResponse<byte[]> r = proxy.client().send(
            HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/100000")).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.body()).hasSize(100_000);
      }
      org.awaitility.Awaitility.await().until(() -> proxy.store().snapshot().stream()
          .allMatch(f -> f.state() != dev.loupe.engine.flow.FlowState.IN_FLIGHT));
      assertThat(vm.meter().awaitCounted()).isTrue();
      vm.tick();
      assertThat(vm.requestsPerSecond()).hasSize(StatusViewModel.HISTORY);
      assertThat(vm.requestsPerSecond().get(StatusViewModel.HISTORY - 1)).isPositive();
      assertThat(vm.requestsPerSecond().subList(0, StatusViewModel.HISTORY - 1)).containsOnly(0.0);
      assertThat(vm.throughputProperty().get()).matches("[0-9.]+ req/s · [0-9.]+ (KiB|MiB)/s");
      assertThat(proxy.store().heapBytes()).isGreaterThanOrEqualTo(500_000); // 5 × 100,000 captured bytes
      assertThat(vm.memoryProperty().get()).endsWith("bodies " + dev.loupe.ui.flows.FlowRow.humanBytes(proxy.store().heapBytes()));
      vm.tick();
      assertThat(vm.requestsPerSecond().get(StatusViewModel.HISTORY - 1)).as("nothing new since").isZero();
    }
  }
}
