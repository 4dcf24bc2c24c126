// The per-container shim: a `sh` (about 1.5 MB, not another Bun) in a session of its own, so it outlives
// the agent. It starts the container as its child in a new session (pgid = pid), joined to its cgroups,
// its output the shim's own (the FIFOs of the container's stamper, output.ts); it records the container's pid and start time, waits for it, and
// records how it ended (what is left of the container's group and cgroup is killed with it). Run under `unshare --mount --uts --ipc --pid` (without --fork), its first child
// is pid 1 of a new PID namespace: that child mounts its own /proc and /dev/shm, sets the hostname and
// bind-mounts the volumes before it execs the command. Only shell builtins run after that child is gone (a dead
// PID namespace takes no new processes). Passed as `sh -c` text, never as a file a newer agent could
// rewrite under a running shell; its $0 is the shell's path, for the step that records the pid.
import type { Mount } from "./process.ts";

const SCRIPT = String.raw`
stat_start() { set -- ${"${1##*\") \"}"}; shift 19; START=$1; }
read -r s < /proc/self/stat; stat_start "$s"; shim="${"${s%% *}"} $START"
# its own tools come from the usual places whatever PATH the container's environment sets
[ -z "${"${PATH+x}"}" ] || cpath=$PATH
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
rec=$1 wd=$2 host=$3 setsid=$4 ns=$5 stdin=$6 n=$7; shift 7
cgs=
while [ "$n" -gt 0 ]; do cgs="$cgs $1"; shift; n=$((n - 1)); done
(
  # stdin for attach: the run's FIFO, read-only (its writers are the agent, and with "keep" this shim)
  if [ "$stdin" = none ]; then exec < /dev/null; else exec < "$rec.stdin"; fi
  fail() { echo "$1" > "$rec.err"; echo "$1" >&2; exit 128; }
  read -r s < /proc/self/stat; stat_start "$s"; p=${"${s%% *}"}
  for c in $cgs; do echo 0 > "$c/cgroup.procs" || fail "cannot join the cgroup $c"; done
  if [ "$ns" = ns ]; then
    mount -t proc proc /proc || fail "cannot mount /proc"
    # its IPC namespace's POSIX shared memory: a /dev/shm of its own, 64 MiB as containerd gives
    mount -t tmpfs -o nosuid,nodev,noexec,size=65536k shm /dev/shm || fail "cannot mount /dev/shm"
    [ -z "$host" ] || echo "$host" > /proc/sys/kernel/hostname || fail "cannot set the hostname $host"
  fi
  n=$1; shift
  while [ "$n" -gt 0 ]; do
    # a mount point that is there already costs no mkdir; a read-only one is bound and remounted by one mount
    if [ -d "$1" ]; then [ -d "$2" ] || mkdir -p -- "$2"; else [ -e "$2" ] || { mkdir -p -- "${"${2%/*}"}" && : > "$2"; }; fi || fail "cannot create the mount point $2"
    if [ "$3" = ro ]; then o="-o ro"; else o=; fi
    mount --rbind $o -- "$1" "$2" || fail "cannot mount $1 at $2"
    shift 3; n=$((n - 1))
  done
  cd -- "$wd" || fail "cannot enter the working directory $wd"
  if [ -n "${"${cpath+x}"}" ]; then PATH=$cpath; else unset PATH; fi
  # recorded once it leads its own process group, just before the command runs
  exec "$setsid" -- "$0" -c 'echo "$1" > "$2"; shift 2; exec "$@"' - "$p $START $shim" "$rec.pid" "$@"
) &
c=$!
[ "$stdin" != once ] || exec < /dev/null
wait $c; code=$?
kill -s KILL -- -$c 2>/dev/null
for c in $cgs; do while read -r p; do kill -s KILL "$p"; done < "$c/cgroup.procs"; done 2>/dev/null
oom=0
for c in $cgs; do
  for f in "$c/memory.oom_control" "$c/memory.events"; do
    [ -f "$f" ] || continue
    while read -r k v; do [ "$k" != oom_kill ] || [ "$v" = 0 ] || oom=1; done < "$f"
  done
done
echo "$code $oom" > "$rec.exit"
`;

export interface ShimRun {
  /** The run's files' prefix (records.ts runPrefix). */
  prefix: string;
  workingDir: string;
  argv: string[];
  mounts: Mount[];
  /** Set only with namespaces. */
  hostname?: string;
  namespaces: boolean;
  cgroups: string[];
  stdin?: "keep" | "once";
}

/** The command line that starts a run: `sh -c SCRIPT` with the run's parameters as positional arguments. */
export function shimArgv(sh: string, setsid: string, r: ShimRun): string[] {
  return [
    sh, "-c", SCRIPT, sh, r.prefix, r.workingDir, r.hostname ?? "", setsid, r.namespaces ? "ns" : "plain", r.stdin ?? "none",
    String(r.cgroups.length), ...r.cgroups,
    String(r.mounts.length), ...r.mounts.flatMap((m) => [m.hostPath, m.containerPath, m.readOnly ? "ro" : "rw"]),
    ...r.argv,
  ];
}
