#!/bin/sh
# A bench program that floods the runner on purpose, one way per case: "flood" prints samples for ever, "longline"
# prints a 2 MiB line without a newline, "chatter" keeps printing calibrated lines (so it never stalls) and never
# ends, "metaflood" prints meta lines with new keys for ever,
# "evil" fails with escape sequences in its message; any other case is well behaved.
[ "$1" = run ] || exit 2
shift
cases=""
while [ $# -gt 0 ]; do
  case "$1" in
    --*) shift 2 ;;
    *) cases="$cases $1"; shift ;;
  esac
done
echo "bench-bridge-protocol 2"
echo "timer_overhead_ns 20"
for c in $cases; do
  echo "begin $c"
  case "$c" in
    flood) while :; do echo "sample $c 1000 50000"; done ;;
    longline) head -c 2097152 /dev/zero | tr '\0' x; sleep 600 ;;
    chatter) while :; do echo "calibrated $c 1000"; sleep 0.01; done ;;
    metaflood) i=0; while :; do i=$((i + 1)); echo "meta key$i value"; done ;;
    evil) printf 'error %s \033]0;owned-title\007\033[2J\n' "$c"; echo "end $c"; continue ;;
  esac
  echo "calibrated $c 1000"
  for i in 1 2 3; do echo "sample $c 1000 $((50000 + i * 10))"; done
  echo "end $c"
done
