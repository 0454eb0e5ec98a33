import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';

/** Seconds. Most answers take a millisecond or two; renewals and logins reach the tens of milliseconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Seconds from an event's commit to its successful delivery: milliseconds normally, hours when retries run. */
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60, 300, 1800, 3600, 21_600, 86_400];

/**
 * The instance's Prometheus metrics, in a registry of its own (a process may host several instances: the tests
 * do). Served by the metrics listener (`METRICS_PORT`); the per-request hook is installed only when it is on.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  readonly enabled: boolean;

  private readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status code: latency in seconds (its _count is the request count).',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly authFailures = new Counter({
    name: 'tollgate_auth_failures_total',
    help: 'Requests refused for their credential (401) or its rights (403), by details.code.',
    labelNames: ['status_code', 'code'] as const,
    registers: [this.registry],
  });

  readonly subscriptionChanges = new Counter({
    name: 'tollgate_subscription_changes_total',
    help: 'Committed subscription changes by type (renewed, canceled, plan_changed).',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: 'tollgate_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed, kept, delivered_not_recorded, not_recorded) and mode (scheduled, manual, test).',
    labelNames: ['outcome', 'mode'] as const,
    registers: [this.registry],
  });

  readonly webhookLag = new Histogram({
    name: 'tollgate_webhook_delivery_lag_seconds',
    help: 'Seconds from the event being recorded to its successful delivery (scheduled deliveries).',
    buckets: LAG_BUCKETS,
    registers: [this.registry],
  });

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.enabled = config.metricsPort !== undefined;
    // Process metrics (CPU, memory, event-loop delay, GC) sample on their own: only when someone can read them.
    if (this.enabled) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * The observer of one route, made once when the route is registered (the hook then knows its route template
   * without looking it up): per answer, one histogram observation.
   */
  routeObserver(method: string | string[], route: string): (statusCode: number, seconds: number) => void {
    const methods = Array.isArray(method) ? method.join(',') : method;
    return (statusCode, seconds) =>
      this.requestDuration.labels(methods, route, String(statusCode)).observe(seconds);
  }

  /** A request that matched no route (404): one series per method, as its URL is no template. */
  observeUnmatched(method: string, statusCode: number, seconds: number): void {
    this.requestDuration.labels(method, 'unmatched', String(statusCode)).observe(seconds);
  }

  /** A counter read from a running total when scraped (services count in plain fields, off the request path). */
  counter(name: string, help: string, read: () => number): void {
    const counter: Counter = new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        counter.reset();
        counter.inc(read());
      },
    });
  }

  /** A gauge computed when scraped (pool use, queue depth), never on the request path. */
  gauge<Label extends string>(
    name: string,
    help: string,
    labelNames: readonly Label[],
    collect: (set: (value: number, labels?: Partial<Record<Label, string>>) => void) => Promise<void> | void,
  ): void {
    const gauge: Gauge<Label> = new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        gauge.reset();
        try {
          await collect((value, labels) => (labels ? gauge.set(labels, value) : gauge.set(value)));
        } catch {
          // A gauge read from the database has no value while it cannot be read (an outage, no connection slot:
          // logged by the database module); the scrape still serves the others, those that tell why among them.
          gauge.reset();
        }
      },
    });
  }
}
