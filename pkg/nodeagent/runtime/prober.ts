// Commands run inside containers for exec probes and hooks, by one long-lived perl helper per agent
// instead of an `nsenter` process each: the agent writes a request line, the helper forks a child that
// leads a process group of its own, enters the container's IPC, UTS, network, PID and mount namespaces
// (through its process, /proc/PID/ns), forks the command there (the PID namespace takes effect for
// children) in its working directory and environment, and answers with the child's pid, then its exit
// code and output (at most 10 KiB of each stream, as upstream). Starting a probe is then a pipe write on
// the agent's event loop, not a process spawn that blocks it until the child has exec'd; what a probe
// costs beside that is two forks of a small process and the command itself. The helper exits when the
// agent closes its stdin (or dies): the probes still running are killed with it.
import { PerlHelper } from "./helper.ts";
import { SYSCALLS } from "./shim.ts";

/** upstream's maxReadLength for an exec probe's output. */
export const MAX_OUTPUT = 10 * 1024;

const SCRIPT = String.raw`
use strict;
my ($SYS_setns, $SYS_setsid) = (split /,/, shift @ARGV)[2, 3];
my $MAX = shift @ARGV;
$| = 1;
# a closed agent is seen as the end of stdin; Ctrl-C at a terminal stops the agent, which then closes it
$SIG{PIPE} = $SIG{INT} = "IGNORE";
my (%runs, $in);
sub hx { unpack("H*", $_[0]) }
sub start {
  my ($id, $target, $wd, $n, @rest) = @_;
  my %env = map { split /=/, $_, 2 } splice(@rest, 0, $n);
  my @cmd = @rest;
  my ($or, $ow, $er, $ew);
  (pipe($or, $ow) && pipe($er, $ew)) or return print "done $id 1 - ", hx("pipe: $!"), "\n";
  my $pid = fork;
  defined $pid or return print "done $id 1 - ", hx("fork: $!"), "\n";
  if (!$pid) {
    # an ignored signal stays ignored across exec: the command gets the defaults
    $SIG{PIPE} = $SIG{INT} = "DEFAULT";
    close($or); close($er);
    open(STDIN, "<", "/dev/null"); open(STDOUT, ">&", $ow); open(STDERR, ">&", $ew);
    syscall($SYS_setsid + 0);
    my @fds;
    for my $ns (qw(ipc uts net pid mnt)) {
      open(my $f, "<", "/proc/$target/ns/$ns") or do { print STDERR "cannot open /proc/$target/ns/$ns: $!\n"; exit 1 };
      push @fds, $f;
    }
    for my $f (@fds) { syscall($SYS_setns + 0, fileno($f), 0) == 0 or do { print STDERR "reassociate to namespace failed: $!\n"; exit 1 } }
    close($_) for @fds;
    defined(my $c = fork) or do { print STDERR "fork: $!\n"; exit 1 };
    if (!$c) {
      chdir($wd) or do { print STDERR "cannot change directory to $wd: $!\n"; exit 1 };
      %ENV = %env;
      exec { $cmd[0] } @cmd;
      print STDERR "exec: \"$cmd[0]\": $!\n";
      exit($!{ENOENT} ? 127 : 126);
    }
    waitpid($c, 0);
    exit($? & 127 ? 128 + ($? & 127) : $? >> 8);
  }
  close($ow); close($ew);
  print "pid $id $pid\n";
  $runs{$id} = { pid => $pid, out => $or, err => $er, o => "", e => "" };
}
for (;;) {
  my $rin = "";
  vec($rin, 0, 1) = 1;
  my $reaping = 0;
  for my $r (values %runs) {
    vec($rin, fileno($_), 1) = 1 for grep { defined } $r->{out}, $r->{err};
    $reaping = 1 if !defined $r->{out} && !defined $r->{err};
  }
  my $ready = select(my $rout = $rin, undef, undef, $reaping ? 0.005 : 0.25);
  if ($ready > 0 && vec($rout, 0, 1)) {
    my $got = sysread(STDIN, my $buf, 65536);
    if (!$got) { kill("KILL", -$_->{pid}) for values %runs; exit 0 }
    $in .= $buf;
    while ($in =~ s/^([^\n]*)\n//) { start(map { pack("H*", $_) } split / /, $1) }
  }
  for my $r (values %runs) {
    for my $k ("out", "err") {
      my $fh = $r->{$k};
      next unless $ready > 0 && defined $fh && vec($rout, fileno($fh), 1);
      my $key = $k eq "out" ? "o" : "e";
      my $buf;
      if (!sysread($fh, $buf, 65536)) { close($fh); $r->{$k} = undef; next }
      $r->{$key} .= substr($buf, 0, $MAX - length $r->{$key}) if length $r->{$key} < $MAX;
    }
  }
  while ((my $pid = waitpid(-1, 1)) > 0) {
    my $code = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    # once the leader is gone, so is what it left running (it would hold the pipes open)
    for my $r (values %runs) { if ($r->{pid} == $pid) { $r->{code} = $code; kill("KILL", -$pid) } }
  }
  for my $id (keys %runs) {
    my $r = $runs{$id};
    next if defined $r->{out} || defined $r->{err} || !defined $r->{code};
    print "done $id $r->{code} ", hx($r->{o}) || "-", " ", hx($r->{e}) || "-", "\n";
    delete $runs{$id};
  }
}
`;

export interface ProberResult { exitCode: number; stdout: string; stderr: string }

interface Pending { onPid: (pid: number) => void; done: (r: ProberResult | Error) => void }

const unhex = (s: string) => (s === "-" ? "" : Buffer.from(s, "hex").toString());

/** One answer line: "pid ID PID", or "done ID CODE STDOUT STDERR" (hex, "-" for none), the last. */
function answer(p: Pending, [what, a, b, c]: string[]): boolean {
  if (what === "pid") { p.onPid(Number(a)); return false; }
  p.done({ exitCode: Number(a), stdout: unhex(b), stderr: unhex(c) });
  return true;
}

export class Prober {
  private readonly helper: PerlHelper<Pending>;

  constructor(perl: string) {
    this.helper = new PerlHelper([perl, "-e", SCRIPT, (SYSCALLS[process.arch] ?? []).join(","), String(MAX_OUTPUT)], answer,
      (p) => p.done(new Error("the probe helper exited")));
  }

  /**
   * Runs argv (its first element a path) inside the namespaces of process `target`; `onPid` gets the
   * pid of the process group it runs in (to kill it at a timeout). Rejects when the helper is gone.
   */
  run(target: number, workingDir: string, env: Record<string, string>, argv: string[], onPid: (pid: number) => void): Promise<ProberResult> {
    const envList = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    return new Promise((resolve, reject) => {
      this.helper.request([String(target), workingDir, String(envList.length), ...envList, ...argv],
        { onPid, done: (r) => (r instanceof Error ? reject(r) : resolve(r)) });
    });
  }

  /** Ends the helper (a stopping agent): what it still runs is killed. */
  close(): void {
    this.helper.close();
  }
}
