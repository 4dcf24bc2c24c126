// Cron schedules are validated by parsing them as upstream's parser (robfig/cron v3, ParseStandard) does.
export { scheduleError } from "../util/cron.ts";
