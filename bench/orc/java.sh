#!/usr/bin/env bash
# bench/orc/java.sh — compile (once) and run bench/orc/java/OrcTool.java,
# Apache Paimon Java's ORC writer and reader as an oracle (see the tool's
# header for the commands).  Needs the Java oracle of bench/java built by
# scripts/java-oracle.sh (its jar and class path); exits 2 without a JDK.
#   bench/orc/java.sh write SCHEMA.json ROWS.jsonl OUT.orc [key=value ...]
#   bench/orc/java.sh read SCHEMA.json IN.orc
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/scripts/java-oracle.sh" >/dev/null
jar="$root/bench/java/target/paimon-oracle-1.jar"
cp="$jar:$(cat "$root/bench/java/target/classpath.txt")"
out="$root/bench/orc/java/target"
src="$root/bench/orc/java/OrcTool.java"
command -v javac >/dev/null || { echo "bench/orc/java.sh: javac not found" >&2; exit 2; }
exec 9>"$root/bench/orc/java/.build.lock"
flock 9
if [ ! -f "$out/org/paimonc/oracle/OrcTool.class" ] || [ "$src" -nt "$out/org/paimonc/oracle/OrcTool.class" ] ||
   [ "$jar" -nt "$out/org/paimonc/oracle/OrcTool.class" ]; then
  mkdir -p "$out"
  javac -nowarn -d "$out" -cp "$cp" "$src"
fi
flock -u 9
exec java ${JAVA_OPTS:-} -Duser.timezone=UTC -Dlog4j2.level=OFF -cp "$out:$cp" org.paimonc.oracle.OrcTool "$@"
