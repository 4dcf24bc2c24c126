// Where a container's output goes. Never through the agent: a container outlives the agent, so its
// stdout and stderr are two pipes read by a stamper its shim forks (shim.ts) that writes CRI-format lines
// (`<RFC3339Nano> stdout|stderr F|P <line>`, what the kubelet reads back for --timestamps and --since) to
// the container's log file and rotates it by --container-log-max-size / --container-log-max-files. The
// stamper ends when every writer has closed.
import { rmSync } from "node:fs";
import { mkfifo as makeFifo } from "./libc.ts";

export interface LogRotation {
  /** A log file reaching this many bytes is rotated (--container-log-max-size). */
  maxBytes: number;
  /** Files kept per container run, the current one included (--container-log-max-files). */
  maxFiles: number;
}

/** The kubelet's defaults: 10Mi, 5 files. */
export const DEFAULT_LOG_ROTATION: LogRotation = { maxBytes: 10 * 1024 * 1024, maxFiles: 5 };

let rotation = DEFAULT_LOG_ROTATION;

/** Set once by the agent from its flags; every container started after uses it. */
export function configureLogRotation(r: LogRotation): void { rotation = r; }

/**
 * The stamper, a perl sub the shim (shim.ts) runs in a process of its own: stamp($out, $err, $log, $max,
 * $keep) reads the container's stdout and stderr pipes until every writer has closed them. Lines longer
 * than 16 KiB are cut into partial (P) lines, as containerd does; a last line without a newline is a full
 * (F) line. Time::HiRes is in Debian's perl, not perl-base: without it, whole seconds.
 */
export const STAMPER = String.raw`
sub stamp {
my ($o, $e, $log, $max, $keep) = @_;
my $hires = eval { require Time::HiRes; 1 };
my ($dir, $base) = $log =~ m{^(.*)/([^/]+)$};
my $p = ""; for (split m{/}, $dir) { $p .= "$_/"; mkdir($p) }
my $size = -s $log || 0;
open(my $L, ">>", $log) or die "$log: $!";
select((select($L), $| = 1)[0]);
my $now = sub {
  my $t = $hires ? Time::HiRes::time() : time;
  my @g = gmtime($t);
  (my $f = sprintf("%06d", ($t - int($t)) * 1e6)) =~ s/0+$//;
  sprintf("%04d-%02d-%02dT%02d:%02d:%02d%sZ", $g[5] + 1900, $g[4] + 1, @g[3, 2, 1, 0], length($f) ? ".$f" : "");
};
my $rotate = sub {
  close($L);
  my @g = gmtime;
  my $to = sprintf("%s.%04d%02d%02d-%02d%02d%02d", $log, $g[5] + 1900, $g[4] + 1, @g[3, 2, 1, 0]);
  my ($n, $t) = (0, $to);
  $t = sprintf("%s.%03d", $to, ++$n) while -e $t;
  rename($log, $t);
  opendir(my $d, $dir);
  my @old = sort grep { /^\Q$base\E\.\d{8}-\d{6}/ } readdir($d);
  closedir($d);
  unlink(map { "$dir/$_" } @old[0 .. $#old - ($keep - 1)]) if @old > $keep - 1;
  open($L, ">>", $log) or die "$log: $!";
  select((select($L), $| = 1)[0]);
  $size = 0;
};
my $batch = "";
my $put = sub {
  my $line = shift;
  my $held = $size + length($batch);
  if ($held > 0 && $held + length($line) > $max) { print $L $batch; $batch = ""; $rotate->() }
  $batch .= $line;
};
my %s = (fileno($o) => ["stdout", $o, ""], fileno($e) => ["stderr", $e, ""]);
while (%s) {
  my $r = "";
  vec($r, $_, 1) = 1 for keys %s;
  next if select($r, undef, undef, undef) < 0;
  my $ts = $now->();
  for my $fd (keys %s) {
    next unless vec($r, $fd, 1);
    my $st = $s{$fd};
    my $n = sysread($st->[1], my $chunk, 65536);
    if (!$n) { $put->("$ts $st->[0] F $st->[2]\n") if length $st->[2]; delete $s{$fd}; next }
    $st->[2] .= $chunk;
    while ((my $i = index($st->[2], "\n")) >= 0 || length($st->[2]) >= 16384) {
      my $n = ($i < 0 || $i >= 16384) ? 16384 : $i + 1;
      $put->("$ts $st->[0] " . ($n == $i + 1 ? "F " : "P ") . substr($st->[2], 0, $n) . ($n == $i + 1 ? "" : "\n"));
      substr($st->[2], 0, $n) = "";
    }
  }
  print $L $batch; $size += length($batch); $batch = "";
}
}
`;

export function mkfifo(path: string): void {
  rmSync(path, { force: true });
  makeFifo(path);
}

/** The rotation containers started from now on get. */
export const logRotation = (): LogRotation => rotation;
