#!/bin/bash
# protocol1.sh PROG ARG...: PROG, a bench program of protocol 2, as a program of protocol 1 runs: it refuses protocol
# 2's flags as unknown (exit 2) and prints version 1 without protocol 2's records. BB_PROTOCOL1_SLOWDOWN=SHARE passes
# --slowdown SHARE to PROG's runs: a slowdown that bench-bridge cannot ask a protocol 1 program for.
set -o pipefail
prog=$1
shift
for a in "$@"; do
  case $a in
    --ref | --ref=* | --slowdown | --slowdown=* | --slowdown-steps | --slowdown-steps=*)
      echo "protocol1.sh: unknown flag: $a" >&2
      exit 2 ;;
  esac
done
if [ "$1" = run ] && [ -n "${BB_PROTOCOL1_SLOWDOWN:-}" ]; then
  set -- "$@" --slowdown "$BB_PROTOCOL1_SLOWDOWN"
fi
"$prog" "$@" | sed -u -e '1s/^bench-bridge-protocol 2$/bench-bridge-protocol 1/' -e '/^slowdown /d'
