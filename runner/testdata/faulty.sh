#!/bin/sh
# A bench program, in the protocol of docs/protocol.md, whose cases misbehave on purpose:
# "crash" dies of SIGSEGV, "hang" never finishes, "garbage" prints a line outside the protocol,
# "fails" reports a clean error, "dies" prints two samples and then dies of SIGSEGV; any other case gives three
# samples of 1000 ops in 50000 ns. Others flood the runner: "flood" prints samples for ever, "longline" a 2 MiB line
# without a newline, "chatter" calibrated lines for ever (so it never stalls), "metaflood" meta lines with new keys
# for ever; "evil" fails with escape sequences in its message; "diesatexit" is measured, and the program dies of
# SIGSEGV after its last case, on its way out.
if [ "$1" = list ]; then echo a; echo b; echo c; exit 0; fi
[ "$1" = run ] || exit 2
shift
cases=""
while [ $# -gt 0 ]; do
  case "$1" in
    --*) shift 2 ;;
    *) cases="$cases $1"; shift ;;
  esac
done
echo "bench-bridge-protocol 1"
echo "meta program bridge"
echo "timer_overhead_ns 20"
for c in $cases; do
  echo "begin $c"
  case "$c" in
    crash) echo "about to crash" >&2; kill -SEGV $$ ;;
    hang) sleep 600 ;;
    garbage) echo "hello there" ;;
    fails) echo "error $c TypeError: boom"; echo "end $c"; continue ;;
    dies) echo "calibrated $c 1000"; echo "sample $c 1000 50000"; echo "sample $c 1000 50001"; kill -SEGV $$ ;;
    flood) while :; do echo "sample $c 1000 50000"; done ;;
    longline) head -c 2097152 /dev/zero | tr '\0' x; sleep 600 ;;
    chatter) while :; do echo "calibrated $c 1000"; sleep 0.01; done ;;
    metaflood) i=0; while :; do i=$((i + 1)); echo "meta key$i value"; done ;;
    diesatexit) atexit=1 ;;
    evil) printf 'error %s \033]0;owned-title\007\033[2J\n' "$c"; echo "end $c"; continue ;;
  esac
  echo "calibrated $c 1000"
  for i in 1 2 3; do echo "sample $c 1000 $((50000 + i * 10))"; done
  echo "end $c"
done
[ -z "${atexit:-}" ] || kill -SEGV $$
