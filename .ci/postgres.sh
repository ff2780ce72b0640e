#!/usr/bin/env bash
# Start a throwaway PostgreSQL server for the test suite and print its URL.
# Usage: eval "$(.ci/postgres.sh start)"   (exports LEDGER_TEST_POSTGRES_URL and PGDATA_DIR)
#        .ci/postgres.sh stop "$PGDATA_DIR"
set -euo pipefail
bindir="$(pg_config --bindir)"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "${1:-}" in
start)
  dir="$(mktemp -d /tmp/ledger-pg.XXXXXX)"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  as_pg "$bindir/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
  echo "export PGDATA_DIR=$dir"
  echo "export LEDGER_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:$port/postgres"
  ;;
stop)
  [ -n "${2:-}" ] && as_pg "$bindir/pg_ctl" -D "$2/data" -m fast stop >/dev/null 2>&1 || true
  [ -n "${2:-}" ] && rm -rf "$2"
  ;;
*) echo "usage: $0 start | stop DIR" >&2; exit 2 ;;
esac
