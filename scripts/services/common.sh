# Shared by start.sh and stop.sh (sourced, not run). See README.md here.
# shellcheck shell=bash disable=SC2034  # the variables here are used by the scripts that source this file

# Repository root = two levels above this file, wherever the clone lives.
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SVC_DIR="$REPO_ROOT/.services"
LOG_DIR="$SVC_DIR/logs"
RUN_DIR="$SVC_DIR/run"
ENV_FILE="$SVC_DIR/env"
# Maven repository and Go module/build caches. Inside .services by default so
# that removing .services gives a true clean slate; point SERVICES_CACHE_DIR at
# a longer-lived folder to share the downloads between clones.
CACHE_DIR="${SERVICES_CACHE_DIR:-$SVC_DIR/cache}"

KAFKA_PORT="${SERVICES_KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${SERVICES_KAFKA_CONTROLLER_PORT:-19093}"
MONGO_PORT="${SERVICES_MONGO_PORT:-27018}"
AZURITE_PORT="${SERVICES_AZURITE_PORT:-10000}"
POSTGRES_PORT="${SERVICES_POSTGRES_PORT:-15432}"
START_TIMEOUT="${SERVICES_START_TIMEOUT:-90}"
VERBOSE="${SERVICES_VERBOSE:-0}"

# Azurite's documented, public development account (not a secret).
AZURITE_ACCOUNT=devstoreaccount1
AZURITE_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='

# Prints the comment block at the top of the running script.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

say() { if [ "$VERBOSE" = 1 ]; then echo "services: $*" >&2; fi; }
err() { echo "services: error: $*" >&2; }
die() { err "$*"; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' is not installed or not on PATH (needed for the local test servers)"; }

# One start/stop at a time per clone.
take_lock() {
  mkdir -p "$SVC_DIR"
  command -v flock >/dev/null 2>&1 || return 0
  exec 9>"$SVC_DIR/.lock"
  flock -w 300 9 || die "another start.sh/stop.sh holds $SVC_DIR/.lock"
}

service_address() {
  case "$1" in
    kafka) echo "127.0.0.1:$KAFKA_PORT" ;;
    mongo) echo "127.0.0.1:$MONGO_PORT" ;;
    azurite) echo "127.0.0.1:$AZURITE_PORT" ;;
    postgres) echo "127.0.0.1:$POSTGRES_PORT" ;;
  esac
}

# PostgreSQL's cluster: in .services unless the script runs as root and the postgres user (which the server runs as)
# cannot reach that folder, when it is a folder of its own under /tmp named after the clone.
postgres_dir() {
  if [ "$(id -u)" = 0 ] && ! setpriv --reuid=postgres --regid=postgres --init-groups -- test -x "$SVC_DIR" 2>/dev/null; then
    echo "/tmp/scrapeworks-postgres-$(printf %s "$REPO_ROOT" | sha256sum | cut -c1-12)"
  else
    echo "$SVC_DIR/postgres"
  fi
}

# True when the pid file names a live process that we started (its command
# line mentions this clone's .services folder, or its PostgreSQL cluster, so a
# recycled pid never counts).
service_running() {
  local pid_file="$RUN_DIR/$1.pid" pid marker="$SVC_DIR/"
  [ -f "$pid_file" ] || return 1
  pid="$(cat "$pid_file")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ -r "/proc/$pid/cmdline" ] || return 1
  if [ "$1" = postgres ]; then marker="$(postgres_dir)/"; fi
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$marker"
}

# Fails (with a message) when something already listens on 127.0.0.1:PORT.
port_free() {
  if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
    local who=""
    if command -v ss >/dev/null 2>&1; then
      who="$(ss -Hltnp "sport = :$1" 2>/dev/null | sed -n 's/.*users:((\("[^"]*",pid=[0-9]*\).*/\1/p' | head -n1)"
    fi
    err "$2: port 127.0.0.1:$1 is already in use by a process this script did not start${who:+ ($who)}; stop it, or set SERVICES_*_PORT (see scripts/services/README.md)"
    return 1
  fi
}

# launch NAME CMD ARGS...: runs CMD in the background in its own session, with
# stdout/stderr in $LOG_DIR/NAME.log (the previous log is kept as NAME.log.1).
launch() {
  local name="$1"; shift
  mkdir -p "$LOG_DIR" "$RUN_DIR"
  [ -f "$LOG_DIR/$name.log" ] && mv -f "$LOG_DIR/$name.log" "$LOG_DIR/$name.log.1"
  # setsid execs in place (a background job of a script is no group leader), so $! is the server's pid.
  setsid "$@" </dev/null >"$LOG_DIR/$name.log" 2>&1 9>&- &
  echo $! >"$RUN_DIR/$name.pid"
}

probe() {
  SERVICES_VERBOSE="$VERBOSE" node "$REPO_ROOT/scripts/services/probe.mjs" "$@"
}

# fail_with_log NAME MESSAGE LOGFILE: error message plus the end of the log.
fail_with_log() {
  err "$1: $2"
  if [ -s "$3" ]; then
    echo "---- last lines of $3:" >&2
    tail -n 25 "$3" >&2
    echo "----" >&2
  fi
}

# Rewrites $ENV_FILE with a line per running server, single-quoted so that `. .services/env` works (';' in values).
write_env() {
  local tmp="$ENV_FILE.tmp"
  : >"$tmp"
  if service_running kafka; then echo "KAFKA_BROKERS='127.0.0.1:$KAFKA_PORT'" >>"$tmp"; fi
  if service_running mongo; then echo "MONGO_URL='mongodb://127.0.0.1:$MONGO_PORT/'" >>"$tmp"; fi
  if service_running azurite; then
    echo "AZURE_BLOB_CONNECTION_STRING='DefaultEndpointsProtocol=http;AccountName=$AZURITE_ACCOUNT;AccountKey=$AZURITE_KEY;BlobEndpoint=http://127.0.0.1:$AZURITE_PORT/$AZURITE_ACCOUNT;'" >>"$tmp"
  fi
  if service_running postgres; then echo "DATABASE_URL='postgres://scrapeworks@127.0.0.1:$POSTGRES_PORT/postgres'" >>"$tmp"; fi
  if [ -s "$tmp" ]; then mv -f "$tmp" "$ENV_FILE"; else rm -f "$tmp" "$ENV_FILE"; fi
}

# stop_service NAME: SIGTERM, wait up to 30 s (Kafka shuts down in a few), then SIGKILL.
stop_service() {
  local name="$1" pid i
  if ! service_running "$name"; then
    rm -f "$RUN_DIR/$name.pid"
    return 0
  fi
  pid="$(cat "$RUN_DIR/$name.pid")"
  say "$name: stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 300; i++)); do
    [ -e "/proc/$pid" ] || break
    # A zombie (exited, not yet reaped by its parent) is as good as gone.
    [ "$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null)" = Z ] && break
    sleep 0.1
  done
  if [ -e "/proc/$pid" ] && [ "$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null)" != Z ]; then
    err "$name: pid $pid ignored SIGTERM for 30s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$RUN_DIR/$name.pid"
}
