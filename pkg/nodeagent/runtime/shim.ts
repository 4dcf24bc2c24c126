// The per-container shim: one perl process (perl-base, always on Debian; not another Bun) in a session of
// its own, so that it outlives the agent. It does with system calls what used to take a dozen processes:
// it forks the container's stamper (output.ts: CRI lines to the log, through two pipes), enters the pod's
// network namespace, unshares mount, UTS, IPC and PID namespaces, and forks the container: that child
// (pid 1 of the new PID namespace) joins its cgroups, mounts its own /proc and /dev/shm, sets the
// hostname, bind-mounts the volumes, enters its working directory and a session of its own (pgid = pid),
// records its pid and start time and execs the command. The shim waits for it, kills what is left of its
// group and cgroups, and records how it ended. Passed as `perl -e` text, never as a file a newer agent
// could rewrite under a running shim; the container's environment is passed as arguments (perl itself
// runs with an empty one: a PERL5OPT in a container's env must not change the shim).
import { STAMPER } from "./output.ts";
import type { Mount } from "./process.ts";

/** Linux system call numbers the shim makes: mount, unshare, setns, setsid. */
export const SYSCALLS: Record<string, number[]> = { x64: [165, 272, 308, 112], arm64: [40, 97, 268, 157] };

/** True where the shim knows this architecture's system calls (else containers get no namespaces). */
export const shimKnowsArch = () => process.arch in SYSCALLS;

// shim(ARGS): a sub, so that the spawner (spawner.ts) compiles it once and runs it in a fork per run; the
// state its named subs share is package variables (a named sub would not share a lexical of the call)
const SCRIPT = String.raw`
use strict;
sub shim {
local @ARGV = @_;
our ($sys, $rec, $wd, $host, $ns, $stdin, $netns, $log, $max, $keep) = splice(@ARGV, 0, 10);
our ($SYS_mount, $SYS_unshare, $SYS_setns, $SYS_setsid) = split /,/, $sys;
my @cgs = splice(@ARGV, 0, shift @ARGV);
my @mounts = splice(@ARGV, 0, 3 * shift @ARGV);
my %env = map { split /=/, $_, 2 } splice(@ARGV, 0, shift @ARGV);
my @cmd = @ARGV;
# /proc/<pid>/stat's pid and start time (field 22), read while /proc is still the host's
sub stat_of { open(my $f, "<", "/proc/$_[0]/stat") or return; my $s = <$f>; my ($pid) = $s =~ /^(\d+)/; $s =~ s/^.*\) //s; ($pid, (split / /, $s)[19]) }
sub put { my ($path, $text) = @_; open(my $f, ">", $path) or return 0; print $f $text; close($f) }
# why it could not start: the runtime's StartError, and a line in the container's log
our $parent = 1;
sub fail { put("$rec.err", "$_[0]\n"); print STDERR "$_[0]\n"; put("$rec.exit", "128 0\n") if $parent; exit 128 }
# (copies: syscall may write into a string argument, and these are constants)
sub mount { my @a = @_; syscall($SYS_mount + 0, @a) == 0 }
sub mkpath { my $p = ""; for (split m{/}, $_[0]) { $p .= "$_/"; mkdir($p) } -d $_[0] }
my $shim = join(" ", stat_of("self"));
pipe(my $or, my $ow) or die "pipe: $!";
pipe(my $er, my $ew) or die "pipe: $!";
defined(my $stamper = fork) or die "fork: $!";
if (!$stamper) {
  close($ow); close($ew);
  open(STDIN, "<", "/dev/null"); open(STDOUT, ">", "/dev/null"); open(STDERR, ">", "/dev/null");
  stamp($or, $er, $log, $max, $keep);
  exit 0;
}
close($or); close($er);
open(STDOUT, ">&", $ow); open(STDERR, ">&", $ew);
if ($ns eq "ns") {
  if ($netns ne "") {
    open(my $n, "<", $netns) or fail("cannot enter the network namespace $netns: $!");
    syscall($SYS_setns + 0, fileno($n), 0x40000000) == 0 or fail("cannot enter the network namespace $netns: $!");
  }
  # mount, UTS, IPC and PID: the shim's own, its first child pid 1 of the new PID namespace
  syscall($SYS_unshare + 0, 0x20000 | 0x4000000 | 0x8000000 | 0x20000000) == 0 or fail("cannot create namespaces: $!");
  # MS_REC | MS_PRIVATE: nothing mounted here reaches the host
  mount("none", "/", 0, 0x4000 | 0x40000, 0) or fail("cannot make / private: $!");
}
defined(my $c = fork) or fail("fork: $!");
if (!$c) {
  $parent = 0;
  # stdin for attach: the run's FIFO, read-only (its writers are the agent, and with "keep" this shim)
  if ($stdin eq "none") { open(STDIN, "<", "/dev/null") } else { open(STDIN, "<", "$rec.stdin") or fail("cannot open $rec.stdin: $!") }
  my ($p, $start) = stat_of("self");
  for (@cgs) { put("$_/cgroup.procs", "0\n") or fail("cannot join the cgroup $_") }
  if ($ns eq "ns") {
    mount("proc", "/proc", "proc", 0, 0) or fail("cannot mount /proc");
    # its IPC namespace's POSIX shared memory: a /dev/shm of its own, 64 MiB as containerd gives (nosuid, nodev, noexec)
    mount("shm", "/dev/shm", "tmpfs", 2 | 4 | 8, "size=65536k") or fail("cannot mount /dev/shm");
    $host eq "" or put("/proc/sys/kernel/hostname", "$host\n") or fail("cannot set the hostname $host");
  }
  while (my ($from, $to, $ro) = splice(@mounts, 0, 3)) {
    # a mount point that is there already costs nothing; a file's is an empty file
    my $ok = -d $from ? (-d $to || mkpath($to)) : (-e $to || (mkpath($to =~ s{/[^/]*$}{}r || "/") && put($to, "")));
    $ok or fail("cannot create the mount point $to");
    # MS_BIND | MS_REC, then a read-only one remounted MS_REMOUNT | MS_BIND | MS_RDONLY
    mount($from, $to, 0, 0x1000 | 0x4000, 0) or fail("cannot mount $from at $to");
    $ro ne "ro" or mount("none", $to, 0, 0x20 | 0x1000 | 0x1, 0) or fail("cannot mount $from at $to");
  }
  chdir($wd) or fail("cannot enter the working directory $wd");
  # recorded once it leads its own process group, just before the command runs
  syscall($SYS_setsid + 0) >= 0 or fail("setsid: $!");
  put("$rec.pid", "$p $start $shim\n") or fail("cannot record the process: $!");
  %ENV = %env;
  exec { $cmd[0] } @cmd;
  print STDERR "exec: \"$cmd[0]\": $!\n";
  exit($!{ENOENT} ? 127 : 126);
}
close($ow); close($ew);
open(STDOUT, ">", "/dev/null"); open(STDERR, ">", "/dev/null");
open(STDIN, "<", "/dev/null") if $stdin eq "once";
waitpid($c, 0);
my $code = $? & 127 ? 128 + ($? & 127) : $? >> 8;
kill("KILL", -$c);
for my $cg (@cgs) { open(my $f, "<", "$cg/cgroup.procs") or next; kill("KILL", $_ + 0) for <$f> }
my $oom = 0;
for my $cg (@cgs) {
  for my $file ("$cg/memory.oom_control", "$cg/memory.events") {
    open(my $f, "<", $file) or next;
    while (<$f>) { my ($k, $v) = split; $oom = 1 if $k eq "oom_kill" && $v }
  }
}
# the log holds the container's last lines before its end is recorded (a termination message may be read
# from it then); a writer left behind outside its group holds that up for at most 2 s (WNOHANG polls)
for (1 .. 200) { last if waitpid($stamper, 1) != 0; select(undef, undef, undef, 0.01) }
put("$rec.exit", "$code $oom\n");
}
`;

export interface ShimRun {
  /** The run's files' prefix (records.ts runPrefix). */
  prefix: string;
  workingDir: string;
  argv: string[];
  /** The container's environment. */
  env: Record<string, string>;
  mounts: Mount[];
  /** Set only with namespaces. */
  hostname?: string;
  namespaces: boolean;
  /** A network namespace to enter (with namespaces). */
  netns?: string;
  cgroups: string[];
  stdin?: "keep" | "once";
  /** The container's log file and its rotation. */
  logPath: string;
  maxBytes: number;
  maxFiles: number;
}

/** The shim's subs (the stamper's included): shim(ARGS) runs one. */
export const SHIM_SUBS = STAMPER + SCRIPT;

/** The command line that runs a shim on its own: `perl -e` its subs and a call with the run's parameters. */
export const shimArgv = (perl: string, r: ShimRun): string[] => [perl, "-e", `${SHIM_SUBS}shim(@ARGV);\n`, ...shimArgs(r)];

/** A run's parameters, the shim's arguments. */
export function shimArgs(r: ShimRun): string[] {
  const env = Object.entries(r.env).map(([k, v]) => `${k}=${v}`);
  return [
    (SYSCALLS[process.arch] ?? []).join(","), r.prefix, r.workingDir, r.hostname ?? "",
    r.namespaces ? "ns" : "plain", r.stdin ?? "none", r.netns ?? "", r.logPath, String(r.maxBytes), String(r.maxFiles),
    String(r.cgroups.length), ...r.cgroups,
    String(r.mounts.length), ...r.mounts.flatMap((m) => [m.hostPath, m.containerPath, m.readOnly ? "ro" : "rw"]),
    String(env.length), ...env,
    ...r.argv,
  ];
}
