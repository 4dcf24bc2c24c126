// Upstream's storage transformation metrics, registered on the server's registry.
import client from "prom-client";

export class TransformMetrics {
  private operations: client.Counter<string>;
  private duration: client.Histogram<string>;
  private misses: client.Counter<string>;

  constructor(registry: client.Registry) {
    this.operations = new client.Counter({
      name: "apiserver_storage_transformation_operations_total",
      help: "Total number of transformations.",
      labelNames: ["transformation_type", "transformer_prefix", "status"],
      registers: [registry],
    });
    this.duration = new client.Histogram({
      name: "apiserver_storage_transformation_duration_seconds",
      help: "Latencies in seconds of value transformation operations.",
      labelNames: ["transformation_type"],
      buckets: [5e-6, 1e-5, 2e-5, 4e-5, 8e-5, 1.6e-4, 3.2e-4, 6.4e-4, 1.28e-3, 2.56e-3, 5.12e-3, 1.024e-2, 2.048e-2, 4.096e-2],
      registers: [registry],
    });
    this.misses = new client.Counter({
      name: "apiserver_storage_envelope_transformation_cache_misses_total",
      help: "Total number of cache misses while accessing key decryption key(KEK).",
      registers: [registry],
    });
  }

  /** One transformation; its latency only when it succeeded, as upstream records it. */
  record(type: string, prefix: string, status: string, seconds?: number) {
    this.operations.labels(type, prefix, status).inc();
    if (seconds !== undefined) this.duration.labels(type).observe(seconds);
  }

  cacheMiss() { this.misses.inc(); }
}
