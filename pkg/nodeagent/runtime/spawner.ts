// Container shims started by one long-lived perl helper per agent instead of a Bun.spawn each: Bun.spawn
// holds the agent's event loop until the child has exec'd, which on a busy machine is ~5–10 ms a shim (a
// burst of 100 pods held the loop for most of a second that way, every other pod's step waiting behind
// it); a request line to the helper does not. The helper forks a child per request that leaves the
// helper's session for one of its own (the shim outlives the agent, and no signal to the agent's group
// reaches it), takes its stdin (the run's FIFO, read-write as the agent's writer is, or /dev/null), and
// runs the shim (shim.ts), compiled once by the helper: a run costs a fork, not a perl start and the
// shim's compilation. It answers "exit ID" once it has reaped the shim.
// When the agent stops, its helper ends and the shims keep running (adopted by the next agent).
import { PerlHelper } from "./helper.ts";
import { SHIM_SUBS } from "./shim.ts";

/** The helper's loop; the shim's subs come before it in the same text. */
const SCRIPT = String.raw`
use POSIX ();
$| = 1;
$SIG{PIPE} = $SIG{INT} = "IGNORE";
# a shim's end interrupts the wait below (then reaped and answered at once); one that comes just before
# the wait begins is seen at its timeout, 0.1 s
$SIG{CHLD} = sub {};
my (%ids, $in);
sub start {
  my ($id, $stdin, @args) = @_;
  my $pid = fork;
  defined $pid or return print "exit $id\n";
  if (!$pid) {
    # an ignored signal stays ignored across exec: the shim (and its container) get the defaults
    $SIG{PIPE} = $SIG{INT} = $SIG{CHLD} = "DEFAULT";
    POSIX::setsid();
    # nothing of the helper's pipes stays with the shim
    if ($stdin eq "") { open(STDIN, "<", "/dev/null") } else { open(STDIN, "+<", $stdin) or POSIX::_exit(127) }
    open(STDOUT, ">", "/dev/null"); open(STDERR, ">", "/dev/null");
    shim(@args);
    POSIX::_exit(0);
  }
  $ids{$pid} = $id;
}
for (;;) {
  my $rin = "";
  vec($rin, 0, 1) = 1;
  if (select(my $rout = $rin, undef, undef, 0.1) > 0) {
    my $got = sysread(STDIN, my $buf, 65536);
    exit 0 if defined $got && !$got;
    $in .= $buf if $got;
    while ($in =~ s/^([^\n]*)\n//) { start(map { pack("H*", $_) } split / /, $1) }
  }
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) { my $id = delete $ids{$pid}; print "exit $id\n" if defined $id }
}
`;

export class Spawner {
  private readonly helper: PerlHelper<(reaped: boolean) => void>;

  constructor(perl: string) {
    this.helper = new PerlHelper([perl, "-e", SHIM_SUBS + SCRIPT], (done) => { done(true); return true; }, (done) => done(false));
  }

  /**
   * Starts a shim with `args` (shimArgs) in a session of its own, its stdin the FIFO at `stdinPath` or
   * /dev/null. The promise says true once the shim was reaped, false when the helper went first (the
   * shim may still run).
   */
  start(args: string[], stdinPath = ""): Promise<boolean> {
    return new Promise((resolve) => this.helper.request([stdinPath, ...args], resolve));
  }

  /** Ends the helper (a stopping agent): the shims keep running. */
  close(): void {
    this.helper.close();
  }
}
