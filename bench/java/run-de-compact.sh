#!/usr/bin/env bash
# bench/java/run-de-compact.sh TABLE [options] — Apache Paimon Java compaction of a
# data-evolution TABLE (in place), printing one metrics JSON line (see measure.sh).
exec "$(dirname "${BASH_SOURCE[0]}")/measure.sh" compact-de "$@"
