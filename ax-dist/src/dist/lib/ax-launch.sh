# How the ax command starts a JVM; sourced by bin/ax of a release and by ./ax of a source checkout, never run itself.
#
#   AX_JAVA_OPTS   extra JVM options, last (so they win), for every kind of command
#   AX_CDS=0       no class data sharing archive
#   JAVA_HOME      the JDK to use (else java on PATH, else the newest JDK 21+ in the usual places)

ax_die() { echo "ax: $*" >&2; exit 1; }

# The major version of a java binary: 21 for "21.0.4", 1 for "1.8.0_402" (too old either way); empty if it won't
# run. Read from the JDK's `release` file when it has one: starting a JVM only to ask its version cost every command
# about a tenth of a second.
ax_java_major() {
  local real release major
  real="$(readlink -f "$1" 2>/dev/null || echo "$1")"
  release="$(dirname "$real")/../release"
  if [ -f "$release" ]; then
    major="$(sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$release" | head -n 1)"
    if [ -n "$major" ]; then echo "$major"; return; fi
  fi
  "$1" -version 2>&1 | sed -n 's/.* version "\([0-9][0-9]*\).*/\1/p' | head -n 1
}

ax_ok_java() {
  local major
  [ -x "$1" ] || return 1
  major="$(ax_java_major "$1")"
  [ -n "$major" ] && [ "$major" -ge 21 ]
}

# JAVA_HOME's java, else java on PATH, else the newest JDK 21+ installed in the usual places (Debian/Ubuntu/RHEL, macOS).
ax_find_java() {
  if [ -n "${JAVA_HOME:-}" ] && ax_ok_java "$JAVA_HOME/bin/java"; then
    echo "$JAVA_HOME/bin/java"; return
  fi
  local onpath
  onpath="$(command -v java 2>/dev/null || true)"
  if [ -n "$onpath" ] && ax_ok_java "$onpath"; then
    echo "$onpath"; return
  fi
  local best="" best_major=0 candidate major
  for candidate in /usr/lib/jvm/*/bin/java /Library/Java/JavaVirtualMachines/*/Contents/Home/bin/java; do
    [ -x "$candidate" ] || continue
    major="$(ax_java_major "$candidate")"
    if [ -n "$major" ] && [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
      best="$candidate"; best_major="$major"
    fi
  done
  [ -n "$best" ] && echo "$best"
}

ax_java_or_die() {
  local java
  java="$(ax_find_java || true)"
  [ -n "$java" ] || ax_die "AX needs Java 21 or newer; set JAVA_HOME (found: ${JAVA_HOME:+JAVA_HOME=$JAVA_HOME, }$(command -v java >/dev/null 2>&1 && java -version 2>&1 | head -n 1 || echo 'no java on PATH'))"
  echo "$java"
}

# Creates FILE, unless another process has (one training at a time); one older than two minutes was left by a
# training that died, and is taken over.
ax_claim() {
  find "$1" -mmin +2 -delete 2>/dev/null || true
  (set -C; : >"$1") 2>/dev/null
}

# ax_exec JAVA JAR CACHE_DIR JVM_OPTIONS_FILE ARGS...: runs `ax ARGS...` in place of this shell.
#
# `ax server` and `ax executor` are services: they get JVM_OPTIONS_FILE (heap, collector; one option per line,
# # comments). Every other command is a client that lives a fraction of a second: it gets the quick JIT tier alone
# and the simplest collector, which start fastest (C2 and G1 threads only compete for the cores in that time).
#
# Class data sharing: the classes a kind of command loads, parsed and verified, kept in an archive in CACHE_DIR
# (empty: none) and mapped by every later run of that kind. A service's archive is written when its first run exits
# (-XX:+AutoCreateSharedArchive; the JVM writes a new one when the jar or the JDK changes). The clients' archive is
# written by a training run (dev.ax.cli.CdsTraining: the common client commands against a canned local server) started
# in the background the first time a client command runs with a new jar or JDK, so that it does not depend on which
# command happened to run first.
ax_exec() {
  local java="$1" jar="$2" cache="$3" options_file="$4"
  shift 4
  local kind=cli
  case "${1:-}" in server | executor) kind="$1" ;; esac
  local jvm=()
  if [ "$kind" = cli ]; then
    jvm=(-XX:TieredStopAtLevel=1 -XX:-UsePerfData)
    case " ${AX_JAVA_OPTS:-} " in
      *" -XX:+Use"*GC" "*) ;;  # the user chose a collector; two would stop the JVM
      *) jvm+=(-XX:+UseSerialGC) ;;
    esac
  elif [ -f "$options_file" ]; then
    # shellcheck disable=SC2207  # one option per word, split on purpose
    jvm=($(sed -e 's/#.*//' "$options_file"))
  fi
  local cds=()
  if [ "${AX_CDS:-1}" != "0" ] && [ -n "$cache" ] && [ -w "$cache" ]; then
    if [ "$kind" = cli ]; then
      # Named by JDK and jar: the JVM ignores an archive made for another one, and would never replace it.
      local archive
      archive="$cache/ax-cli-$(printf '%s:%s' "$java" "$(wc -c <"$jar")" | cksum | cut -d ' ' -f 1).jsa"
      if [ -f "$archive" ] && [ "$archive" -nt "$jar" ]; then
        cds=("-XX:SharedArchiveFile=$archive" "-Xlog:cds*=off")
      elif ax_claim "$archive.training"; then
        local tmp="$archive.$$.tmp"
        (
          if "$java" "${jvm[@]}" "-XX:ArchiveClassesAtExit=$tmp" "-Xlog:cds*=off" -cp "$jar" dev.ax.cli.CdsTraining; then
            find "$cache" -maxdepth 1 -name 'ax-cli-*.jsa' ! -name "${archive##*/}" -delete
            mv -f "$tmp" "$archive"
          fi
          rm -f "$tmp" "$archive.training"
        ) </dev/null >/dev/null 2>&1 &
      fi
    else
      cds=(-XX:+AutoCreateSharedArchive "-XX:SharedArchiveFile=$cache/ax-$kind.jsa" "-Xlog:cds*=off")
    fi
  fi
  # shellcheck disable=SC2086  # AX_JAVA_OPTS is a list of options, split on purpose
  exec "$java" ${cds[@]+"${cds[@]}"} ${jvm[@]+"${jvm[@]}"} ${AX_JAVA_OPTS:-} -jar "$jar" "$@"
}
