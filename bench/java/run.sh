#!/usr/bin/env bash
# bench/java/run.sh — run the Apache Paimon Java oracle (PaimonOracle).
#   bench/java/run.sh <command> TABLE [options]   (see `run.sh` with no arguments)
# Builds the tool on first use (scripts/java-oracle.sh). JAVA_OPTS adds JVM
# flags (e.g. -Xmx4g). stdout carries only results; logs go to stderr.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# PAIMON_ORACLE_BUILT=1: the caller already ran scripts/java-oracle.sh (the
# bench wrappers do, so /usr/bin/time measures the JVM alone).
[ "${PAIMON_ORACLE_BUILT:-}" = 1 ] || "$ROOT/scripts/java-oracle.sh" >/dev/null
CP="$HERE/target/paimon-oracle-1.jar:$(cat "$HERE/target/classpath.txt")"
# Throughput GC unless JAVA_OPTS picks one; the JIT is left at its default
# (benchmarks want C2; the interop tests pass -XX:TieredStopAtLevel=1, which
# saves about a second of CPU per JVM on small tables).
gc=-XX:+UseParallelGC
case " ${JAVA_OPTS:-} " in *" -XX:+Use"*GC*) gc= ;; esac
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:-} $gc \
    -Dorg.slf4j.simpleLogger.defaultLogLevel="${PAIMON_ORACLE_LOG:-warn}" \
    -cp "$CP" org.paimonc.oracle.PaimonOracle "$@"
