import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** The gateway's Prometheus metrics, in a registry of its own. */
export class GatewayMetrics {
  readonly #registry = new Registry();
  readonly #requests = new Counter({
    name: 'tessera_gateway_requests_total',
    help: 'Proxied requests by status',
    labelNames: ['status'] as const,
    registers: [this.#registry],
  });
  readonly #duration = new Histogram({
    name: 'tessera_gateway_request_duration_seconds',
    help: 'Time to answer, upstream included',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.#registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.#registry, prefix: 'tessera_gateway_' });
  }

  get contentType(): string {
    return this.#registry.contentType;
  }

  observe(status: number, startedAt: number): void {
    this.#requests.inc({ status });
    this.#duration.observe((performance.now() - startedAt) / 1000);
  }

  render(): Promise<string> {
    return this.#registry.metrics();
  }
}
