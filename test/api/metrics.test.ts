// /metrics: request counts and latencies by verb and resource, object counts, database size.
import { expect, test } from "bun:test";
import { BACKEND, startServer } from "../helpers/server.ts";

test("/metrics counts requests by verb, resource and code, and polls object counts", async () => {
  const s = await startServer(["--etcd-count-metric-poll-period=200ms", "--etcd-db-metric-poll-interval=200ms"]);
  await s.call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "m1" } });
  await s.call("GET", "/api/v1/namespaces/default/configmaps");
  await s.call("GET", "/api/v1/namespaces/default/configmaps");
  await s.call("GET", "/api/v1/namespaces/default/configmaps/nope");
  await Bun.sleep(500);
  const r = await s.req("/metrics");
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toContain("text/plain");
  const text = await r.text();
  const line = (re: RegExp) => text.split("\n").find((l) => re.test(l)) ?? "";
  expect(line(/^apiserver_request_total\{verb="LIST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",code="200"\}/)).toMatch(/ 2$/);
  expect(line(/^apiserver_request_total\{verb="GET",.*resource="configmaps".*code="404"\}/)).toMatch(/ 1$/);
  expect(line(/^apiserver_request_total\{verb="POST",.*resource="configmaps".*code="201"\}/)).toMatch(/ 1$/);
  expect(line(/^apiserver_request_duration_seconds_count\{verb="LIST",.*resource="configmaps".*scope="namespace"/)).toMatch(/ 2$/);
  // buckets are cumulative and end at +Inf with the count; the sum is the latencies' total
  const buckets = text.split("\n").filter((l) => /^apiserver_request_duration_seconds_bucket\{verb="LIST",.*resource="configmaps".*scope="namespace"/.test(l));
  expect(buckets.length).toBe(13);
  const counts = buckets.map((l) => Number(l.split(" ").at(-1)));
  expect(counts).toEqual([...counts].sort((a, b) => a - b));
  expect(buckets.at(-1)).toMatch(/le="\+Inf"\} 2$/);
  const sum = Number(line(/^apiserver_request_duration_seconds_sum\{verb="LIST",.*resource="configmaps"/).split(" ").at(-1));
  expect(sum).toBeGreaterThan(0);
  expect(sum).toBeLessThan(5);
  // the in-flight gauge is read when scraped: as upstream, the scrape itself is the one read in flight
  expect(line(/^apiserver_current_inflight_requests\{request_kind="readOnly"\}/)).toMatch(/ 1$/);
  expect(line(/^apiserver_current_inflight_requests\{request_kind="mutating"\}/)).toMatch(/ 0$/);
  // m1 and the kube-root-ca.crt of each of the four system namespaces
  expect(line(/^apiserver_storage_objects\{resource="configmaps"\}/)).toMatch(/ 5$/);
  expect(line(/^apiserver_storage_objects\{resource="namespaces"\}/)).toMatch(/ 4$/);
  if (BACKEND === "sqlite") expect(Number(line(/^apiserver_storage_db_total_size_in_bytes/).split(" ").at(-1))).toBeGreaterThan(4096);
  await s.stop();
});
