#!/usr/bin/env bash
# scripts/java-oracle.sh — build the Apache Paimon Java oracle (bench/java) once.
#   scripts/java-oracle.sh          build if needed, then print the command to run it
# Idempotent and quiet when already built: the build is redone only when
# bench/java/pom.xml or a source file is newer than the jar, the Paimon
# version changed, or a jar on the recorded class path is gone. Maven caches
# downloads in ~/.m2 (or -Dmaven.repo.local=... given in PAIMON_JAVA_MVN_ARGS).
# Environment:
#   PAIMON_JAVA_VERSION   paimon-bundle version (default: the pom's, 1.4.2)
#   PAIMON_JAVA_MVN_ARGS  extra Maven arguments, e.g. -Dmaven.repo.local=/tmp/m2 -o
# Also installs /usr/bin/time (Debian package `time`) for the bench wrappers.
# Exit codes: 0 built, 1 build failed (see the log), 2 JDK/Maven missing,
# 3 Maven could not download (network or mirror down).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/bench/java"
jar="$dir/target/paimon-oracle-1.jar"
cp_file="$dir/target/classpath.txt"
stamp="$dir/target/.built-with"
log="$dir/target/build.log"
version=${PAIMON_JAVA_VERSION:-}
want="version=${version:-default} args=${PAIMON_JAVA_MVN_ARGS:-}"

# Debian packages: /usr/bin/time for the bench wrappers; a JDK and Maven when missing.
apt_install() {
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "java-oracle: installing $* (apt-get)" >&2
  (export DEBIAN_FRONTEND=noninteractive; $SUDO apt-get update -qq >/dev/null &&
     $SUDO apt-get install -y -qq "$@" >/dev/null)
}
if [ ! -x /usr/bin/time ]; then
  apt_install time || echo "java-oracle: could not install /usr/bin/time (bench wrappers need it)" >&2
fi
if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
  command -v apt-get >/dev/null && apt_install openjdk-17-jdk-headless maven || true
fi

up_to_date() {
  [ -f "$jar" ] && [ -f "$cp_file" ] && [ -f "$stamp" ] || return 1
  [ "$(cat "$stamp")" = "$want" ] || return 1
  [ -z "$(find "$dir/pom.xml" "$dir/src" -newer "$jar" -type f 2>/dev/null | head -1)" ] || return 1
  local IFS=:
  for j in $(cat "$cp_file"); do [ -f "$j" ] || return 1; done
  return 0
}

build() {
  command -v java >/dev/null && command -v mvn >/dev/null || {
    echo "java-oracle: needs a JDK (17+) and Maven on PATH (Debian: openjdk-17-jdk-headless maven)" >&2
    return 2
  }
  mkdir -p "$dir/target"
  rm -f "$stamp"
  local args=(-B -q -Dstyle.color=never package)
  [ -n "$version" ] && args+=("-Dpaimon.version=$version")
  # shellcheck disable=SC2206
  [ -n "${PAIMON_JAVA_MVN_ARGS:-}" ] && args+=(${PAIMON_JAVA_MVN_ARGS})
  echo "java-oracle: building bench/java with Maven (first time downloads ~60 MB)..." >&2
  if ! (cd "$dir" && mvn "${args[@]}") >"$log" 2>&1; then
    if grep -qiE "could not (resolve|transfer|find artifact)|could not be resolved|offline mode|unknownhost|connect(ion)? (refused|timed out)|network is unreachable|failed to read artifact descriptor|non-resolvable" "$log"; then
      echo "java-oracle: Maven could not download its artifacts (network or Maven mirror down?)." >&2
      echo "java-oracle: paimon-bundle ${version:-from pom.xml} + hadoop-common are needed; log: $log" >&2
      grep -m3 -iE "error" "$log" >&2 || true
      return 3
    fi
    echo "java-oracle: Maven build failed; log: $log" >&2
    tail -30 "$log" >&2
    return 1
  fi
  echo "$want" >"$stamp"
  touch "$jar"
}

# One build at a time (parallel test sessions share the target directory).
exec 9>"$root/bench/java/.build.lock"
flock 9
if ! up_to_date; then
  rc=0
  build || rc=$?
  [ $rc = 0 ] || exit $rc
fi
echo "$dir/run.sh"
