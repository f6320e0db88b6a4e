#!/usr/bin/env bash
# bench/java/run-append-compact.sh TABLE [options] — Apache Paimon Java compact-append of TABLE
# (in place), printing one metrics JSON line (see measure.sh for the fields).
exec "$(dirname "${BASH_SOURCE[0]}")/measure.sh" compact-append "$@"
