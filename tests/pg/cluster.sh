#!/bin/sh
# A throwaway PostgreSQL cluster for the tests, on 127.0.0.1 only, fsync off:
#
#   tests/pg/cluster.sh start DIR   # installs Debian's postgresql when missing; writes DIR/url
#   tests/pg/cluster.sh stop DIR    # stops it and removes DIR
#   tests/pg/cluster.sh pause DIR   # stops the server at once (as a crash would), keeps DIR
#   tests/pg/cluster.sh resume DIR  # starts it again on the same port
#
# initdb refuses root, so as root the cluster runs as the `postgres` user (which the Debian
# package creates). Trust authentication: the socket and port are reachable from this machine
# only.
set -eu
cmd=$1
dir=$2
pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case $cmd in
start)
  if [ -z "$(pgbin)" ]; then
    # Only the binaries: no default cluster listening on 5432 for the package's sake.
    mkdir -p /etc/postgresql-common
    [ -f /etc/postgresql-common/createcluster.conf ] || echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  bin=$(pgbin)
  [ -x "$bin/initdb" ] || { echo "no PostgreSQL binaries under /usr/lib/postgresql"; exit 1; }
  rm -rf "$dir" && mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  as_pg "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 >/dev/null
  echo "$port" > "$dir/port"
  "$0" resume "$dir"
  echo "postgres://postgres@127.0.0.1:$port/postgres" > "$dir/url"
  echo "postgres on 127.0.0.1:$port ($("$bin/postgres" --version))"
  ;;
resume)
  bin=$(pgbin)
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $(cat "$dir/port") -k $dir -c fsync=off -c full_page_writes=off -c max_connections=200" start >/dev/null
  ;;
pause)
  as_pg "$(pgbin)/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
  ;;
stop)
  bin=$(pgbin)
  if [ -d "$dir/data" ]; then as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true; fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start|stop|pause|resume DIR"; exit 2
  ;;
esac
