#!/usr/bin/env bash
# Stop the local test servers started by start.sh.
#
#   scripts/services/stop.sh [-v] [--purge] [kafka] [mongo] [azurite] [postgres]     (default: all four)
#
# Idempotent and quiet: stopping a server that is not running is not an error.
# --purge also deletes the servers' data (Kafka topics, FerretDB databases,
# Azurite blobs) but keeps the downloads and builds, so the next start is warm.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$HERE/common.sh"

purge=0
wanted=()
for arg in "$@"; do
  case "$arg" in
    -v|--verbose) VERBOSE=1 ;;
    --purge) purge=1 ;;
    -h|--help) usage; exit 0 ;;
    kafka|mongo|azurite|postgres) wanted+=("$arg") ;;
    ferretdb) wanted+=(mongo) ;;
    *) die "unknown argument '$arg' (expected -v, --purge, kafka, mongo, azurite, postgres)" ;;
  esac
done
[ ${#wanted[@]} -gt 0 ] || wanted=(postgres azurite mongo kafka)

[ -d "$SVC_DIR" ] || exit 0
take_lock

for s in "${wanted[@]}"; do
  stop_service "$s"
  if [ "$purge" = 1 ]; then
    say "$s: deleting its data"
    case "$s" in
      kafka) rm -rf "$SVC_DIR/kafka/data" "$SVC_DIR/kafka/logs" "$SVC_DIR/kafka/cluster-id" ;;
      mongo) rm -rf "$SVC_DIR/ferretdb" ;;
      azurite) rm -rf "$SVC_DIR/azurite" ;;
      postgres) rm -rf "$(postgres_dir)" ;;
    esac
  fi
done

write_env
