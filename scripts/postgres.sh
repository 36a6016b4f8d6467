#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server (Debian's postgresql-15) for the
# tests of session/pgstore and of what uses it.
#
#   scripts/postgres.sh --exec COMMAND [ARGS...]
#   scripts/postgres.sh go test -race -count=1 ./session/pgstore
#
# The cluster is made with initdb in a temporary directory, as the
# postgres system user when run as root (postgres refuses to run as
# root), and the server listens on 127.0.0.1 at a free port, its socket
# in the same directory. WIELD_POSTGRES_URL is set to a URL of it
# (user wield, database postgres, no password) and COMMAND runs; the
# server is stopped and the directory removed whatever happens, and the
# script exits with COMMAND's status. Without a command it prints the URL
# and serves until interrupted.
#
# WIELD_PG_BIN names the directory of initdb, pg_ctl and pg_isready
# (default /usr/lib/postgresql/15/bin).
set -euo pipefail

bin=${WIELD_PG_BIN:-/usr/lib/postgresql/15/bin}
[ "${1:-}" = --exec ] && shift
for tool in initdb pg_ctl pg_isready; do
  [ -x "$bin/$tool" ] || { echo "postgres.sh: $bin/$tool not found (Debian: apt-get install postgresql-15)" >&2; exit 2; }
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/wield-postgres.XXXXXX")
as=()
if [ "$(id -u)" = 0 ]; then
  user=postgres
  id "$user" >/dev/null 2>&1 || user=nobody
  chown "$user" "$dir"
  as=(setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups)
fi
started=
stop() {
  if [ -n "$started" ]; then
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}
trap stop EXIT
trap 'exit 130' INT TERM

"${as[@]}" "$bin/initdb" -D "$dir/data" -U wield --auth=trust -E UTF8 --no-sync --no-instructions >"$dir/initdb.log" 2>&1 ||
  { echo "postgres.sh: initdb failed:" >&2; cat "$dir/initdb.log" >&2; exit 1; }

# A free port: bind port 0, read what the kernel gave, let it go.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
started=1
# pg_ctl -w returns once the server accepts connections, or fails after
# -t seconds.
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300" start >/dev/null ||
  { echo "postgres.sh: the server did not start:" >&2; cat "$dir/server.log" >&2; exit 1; }
"$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -t 10 ||
  { echo "postgres.sh: the server does not answer on 127.0.0.1:$port:" >&2; cat "$dir/server.log" >&2; exit 1; }

export WIELD_POSTGRES_URL="postgres://wield@127.0.0.1:$port/postgres?sslmode=disable"
if [ $# -eq 0 ]; then
  echo "WIELD_POSTGRES_URL=$WIELD_POSTGRES_URL"
  while "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -t 5; do
    sleep 5
  done
  exit 1
fi
set +e
"$@"
status=$?
set -e
exit "$status"
