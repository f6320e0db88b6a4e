#!/usr/bin/env bash
# bench/java/run-mor-read.sh TABLE [options] — Apache Paimon Java mor-read of TABLE
# (in place), printing one metrics JSON line (see measure.sh for the fields).
exec "$(dirname "${BASH_SOURCE[0]}")/measure.sh" mor-read "$@"
