#!/bin/sh
# A protocol 1 bench program that refuses the flags it does not know, as a user's program may: exit 2 with a
# message on stderr and nothing on stdout. Otherwise it behaves as faulty.sh.
for a in "$@"; do
  case "$a" in
    --ref|--slowdown) echo "strict: unknown flag: $a" >&2; exit 2 ;;
  esac
done
exec "$(dirname "$0")/faulty.sh" "$@"
