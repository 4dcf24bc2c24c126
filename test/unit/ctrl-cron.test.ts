// Cron schedules as the CronJob controller reads them (robfig/cron v3's standard parser and its Next), and
// the controller's decisions at a given instant (a fake clock): the most recent unmet time, the starting
// deadline, too many missed times, concurrencyPolicy, suspend, and job names.
import { expect, test } from "bun:test";
import { parseSchedule, scheduleError } from "../../pkg/util/cron.ts";
import { jobFromTemplate, jobName, mostRecentScheduleTime, plan } from "../../pkg/controllers/cronjobschedule.ts";

const at = (s: string) => Date.parse(s);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString().replace(".000Z", "Z"));
const utc = (spec: string) => parseSchedule(`TZ=UTC ${spec}`);

test.each([
  ["* * * * *", "2021-04-08T12:00:30Z", "2021-04-08T12:01:00Z"],
  ["* * * * *", "2021-04-08T12:00:00Z", "2021-04-08T12:01:00Z"],
  ["*/15 * * * *", "2021-04-08T12:00:00Z", "2021-04-08T12:15:00Z"],
  ["5-10/2 * * * *", "2021-04-08T12:06:00Z", "2021-04-08T12:07:00Z"],
  ["30 2/6 * * *", "2021-04-08T12:00:00Z", "2021-04-08T14:30:00Z"],
  ["0 0 1-15/7 JAN,mar *", "2021-04-08T12:00:00Z", "2022-01-01T00:00:00Z"],
  ["0 9 * * MON-fri", "2021-04-09T10:00:00Z", "2021-04-12T09:00:00Z"],
  // a day of month and a day of week, neither `*`: either matches
  ["0 9 1,15 * mon", "2021-04-08T12:00:00Z", "2021-04-12T09:00:00Z"],
  ["0 0 ? * 0", "2021-04-08T12:00:00Z", "2021-04-11T00:00:00Z"],
  ["0 0 29 2 *", "2021-04-08T12:00:00Z", "2024-02-29T00:00:00Z"],
  ["@hourly", "2021-04-08T12:59:59Z", "2021-04-08T13:00:00Z"],
  ["@daily", "2021-04-08T12:00:00Z", "2021-04-09T00:00:00Z"],
  ["@midnight", "2021-04-08T12:00:00Z", "2021-04-09T00:00:00Z"],
  ["@weekly", "2021-04-08T12:00:00Z", "2021-04-11T00:00:00Z"],
  ["@monthly", "2021-04-08T12:00:00Z", "2021-05-01T00:00:00Z"],
  ["@yearly", "2021-04-08T12:00:00Z", "2022-01-01T00:00:00Z"],
  ["@annually", "2021-04-08T12:00:00Z", "2022-01-01T00:00:00Z"],
  ["@every 1h30m", "2021-04-08T12:00:00Z", "2021-04-08T13:30:00Z"],
  ["@every 100ms", "2021-04-08T12:00:00Z", "2021-04-08T12:00:01Z"],
  ["0 0 30 2 *", "2021-04-08T12:00:00Z", undefined],
])("%s after %s is %s", (spec, from, want) => {
  expect(iso(utc(spec).next(at(from)))).toBe(want);
});

test("a TZ= or CRON_TZ= prefix reads the schedule in that zone, daylight saving included", () => {
  expect(iso(parseSchedule("TZ=America/New_York 0 9 * * *").next(at("2021-04-08T12:00:00Z")))).toBe("2021-04-08T13:00:00Z");
  expect(iso(parseSchedule("TZ=America/New_York 0 9 * * *").next(at("2021-01-08T12:00:00Z")))).toBe("2021-01-08T14:00:00Z");
  expect(iso(parseSchedule("CRON_TZ=Asia/Tokyo 30 0 * * *").next(at("2021-04-08T12:00:00Z")))).toBe("2021-04-08T15:30:00Z");
  // 02:30 does not exist on 2021-03-14 in New York: the next day's is the next time
  expect(iso(parseSchedule("TZ=America/New_York 30 2 * * *").next(at("2021-03-14T05:00:00Z")))).toBe("2021-03-15T06:30:00Z");
});

test("without a prefix the schedule is read in the process's local time", () => {
  const local = parseSchedule("0 9 * * *").next(at("2021-04-08T12:00:00Z"))!;
  expect(new Date(local).getHours()).toBe(9);
  expect(new Date(local).getMinutes()).toBe(0);
});

test.each([
  ["", "empty spec string"],
  ["* * * *", "expected exactly 5 fields, found 4: [* * * *]"],
  ["60 * * * *", "end of range (60) above maximum (59): 60"],
  ["0 0 * * 7", "end of range (7) above maximum (6): 7"],
  ["0 0 0 * *", "beginning of range (0) below minimum (1): 0"],
  ["5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"],
  ["*/0 * * * *", "step of range should be a positive number: */0"],
  ["1-2-3 * * * *", "too many hyphens: 1-2-3"],
  ["x * * * *", `failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax`],
  ["@fortnightly", "unrecognized descriptor: @fortnightly"],
  ["@every soon", `failed to parse duration @every soon: time: invalid duration "soon"`],
  ["TZ=Nowhere/Land * * * * *", "provided bad location Nowhere/Land: unknown time zone Nowhere/Land"],
])("%j is refused: %s", (spec, message) => {
  expect(scheduleError(spec)).toBe(message);
});

test("the most recent unmet time counts the times missed since the earliest", () => {
  const hourly = utc("0 * * * *");
  expect(mostRecentScheduleTime(at("2021-04-08T12:00:00Z"), at("2021-04-08T12:59:00Z"), hourly)).toEqual({ missed: 0 });
  expect(mostRecentScheduleTime(at("2021-04-08T12:00:00Z"), at("2021-04-08T13:00:00Z"), hourly)).toEqual({ time: at("2021-04-08T13:00:00Z"), missed: 1 });
  expect(mostRecentScheduleTime(at("2021-04-08T12:00:00Z"), at("2021-04-08T15:30:00Z"), hourly)).toEqual({ time: at("2021-04-08T15:00:00Z"), missed: 3 });
  expect(() => mostRecentScheduleTime(at("2021-04-08T12:00:00Z"), at("2030-01-01T00:00:00Z"), utc("0 0 30 2 *"))).not.toThrow();
});

const cronJob = (spec: Record<string, unknown>, status: Record<string, unknown> = {}) => ({
  apiVersion: "batch/v1", kind: "CronJob",
  metadata: { name: "cj", namespace: "ns", uid: "u-1", creationTimestamp: "2021-04-08T12:00:00Z" },
  spec: { schedule: "TZ=UTC */10 * * * *", concurrencyPolicy: "Allow", jobTemplate: { metadata: { labels: { a: "b" } }, spec: { template: { spec: {} } } }, ...spec },
  status,
});
const parse = parseSchedule;

test("a CronJob starts the most recent unmet time and is looked at again just after its next one", () => {
  const now = at("2021-04-08T12:25:00Z");
  expect(plan(cronJob({}), now, parse)).toEqual({ action: "start", scheduled: at("2021-04-08T12:20:00Z"), replace: false, requeue: 5 * 60_000 + 100, tooMany: undefined });
  // the time already started is not started again
  expect(plan(cronJob({}, { lastScheduleTime: "2021-04-08T12:20:00Z" }), now, parse)).toMatchObject({ action: "wait", requeue: 5 * 60_000 + 100 });
  expect(plan(cronJob({}), at("2021-04-08T12:05:00Z"), parse)).toMatchObject({ action: "wait" });
  expect(plan(cronJob({ suspend: true }), now, parse)).toEqual({ action: "none" });
});

test("startingDeadlineSeconds: a time older than the deadline is not started", () => {
  expect(plan(cronJob({ startingDeadlineSeconds: 60 }), at("2021-04-08T12:20:30Z"), parse)).toMatchObject({ action: "start", scheduled: at("2021-04-08T12:20:00Z") });
  expect(plan(cronJob({ startingDeadlineSeconds: 60 }), at("2021-04-08T12:22:00Z"), parse)).toMatchObject({ action: "wait" });
  expect(plan(cronJob({ startingDeadlineSeconds: 10 }), at("2021-04-08T12:20:10.500Z"), parse)).toMatchObject({ action: "wait" });
});

test("more than 100 missed times are reported, and the latest still starts", () => {
  const p = plan(cronJob({ schedule: "TZ=UTC * * * * *" }), at("2021-04-08T14:00:30Z"), parse);
  expect(p).toMatchObject({ action: "start", scheduled: at("2021-04-08T14:00:00Z"), tooMany: 120 });
  expect(plan(cronJob({ schedule: "TZ=UTC * * * * *", startingDeadlineSeconds: 200 }), at("2021-04-08T14:00:30Z"), parse)).toMatchObject({ action: "start", tooMany: undefined });
});

test("concurrencyPolicy: Allow starts beside active jobs, Forbid does not, Replace replaces them", () => {
  const now = at("2021-04-08T12:25:00Z");
  const active = { active: [{ kind: "Job", namespace: "ns", name: "cj-27002290", uid: "j-1" }], lastScheduleTime: "2021-04-08T12:10:00Z" };
  expect(plan(cronJob({}, active), now, parse)).toMatchObject({ action: "start", replace: false });
  expect(plan(cronJob({ concurrencyPolicy: "Forbid" }, active), now, parse)).toMatchObject({ action: "forbidden" });
  expect(plan(cronJob({ concurrencyPolicy: "Replace" }, active), now, parse)).toMatchObject({ action: "start", replace: true });
});

test("schedules that cannot be read or never come again are reported", () => {
  expect(plan(cronJob({ schedule: "61 * * * *" }), at("2021-04-08T12:25:00Z"), parse)).toEqual({ action: "unparseable", error: "end of range (61) above maximum (59): 61" });
  expect(plan(cronJob({ schedule: "TZ=UTC 0 0 30 2 *" }), at("2021-04-08T12:25:00Z"), parse)).toMatchObject({ action: "wait", requeue: undefined });
});

test("the job of a scheduled time is named after it in minutes, carries the template and is owned by the CronJob", () => {
  const cj = cronJob({});
  expect(jobName(cj, at("2021-04-08T12:20:00Z"))).toBe("cj-26964740");
  expect(jobFromTemplate(cj, at("2021-04-08T12:20:00Z"))).toEqual({
    apiVersion: "batch/v1", kind: "Job",
    metadata: { name: "cj-26964740", namespace: "ns", labels: { a: "b" }, ownerReferences: [{ apiVersion: "batch/v1", kind: "CronJob", name: "cj", uid: "u-1", controller: true, blockOwnerDeletion: true }] },
    spec: { template: { spec: {} } },
  });
});
