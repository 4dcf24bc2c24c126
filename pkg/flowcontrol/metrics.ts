// API Priority and Fairness metrics, named and labelled as upstream's (kept in plain numbers, ../metrics/plain.ts).
import type client from "prom-client";
import { PlainCounter, PlainHistogram } from "../metrics/plain.ts";

const WAIT_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30];

export class FlowMetrics {
  readonly rejected = new PlainCounter("apiserver_flowcontrol_rejected_requests_total", "Number of requests rejected by API Priority and Fairness system", ["flow_schema", "priority_level", "reason"]);
  readonly dispatched = new PlainCounter("apiserver_flowcontrol_dispatched_requests_total", "Number of requests released by API Priority and Fairness system for service", ["flow_schema", "priority_level"]);
  readonly inQueue = new PlainCounter("apiserver_flowcontrol_current_inqueue_requests", "Number of requests currently pending in queues of the API Priority and Fairness system", ["flow_schema", "priority_level"], "gauge");
  readonly executing = new PlainCounter("apiserver_flowcontrol_current_executing_requests", "Number of requests currently executing in the API Priority and Fairness system", ["flow_schema", "priority_level"], "gauge");
  readonly wait = new PlainHistogram("apiserver_flowcontrol_request_wait_duration_seconds", "Length of time a request spent waiting in its queue", ["flow_schema", "priority_level", "execute"], WAIT_BUCKETS);
  readonly limit = new PlainCounter("apiserver_flowcontrol_request_concurrency_limit", "Shared concurrency limit in the API Priority and Fairness system", ["priority_level"], "gauge");

  constructor(registry: client.Registry) {
    for (const m of [this.rejected, this.dispatched, this.inQueue, this.executing, this.wait, this.limit]) registry.registerMetric(m as never);
  }
}
