#!/usr/bin/env bash
# Start the database and cache services the tests need when one is down (CI runs on a machine
# where they usually run already). Fails loudly when one cannot be started.
set -u
wait_for() {  # name, check command
  for _ in $(seq 1 60); do eval "$2" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "service $1 did not come up" >&2; return 1
}
if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  wait_for postgresql "pg_isready -h 127.0.0.1 -p 5432" || exit 1
fi
if ! mariadb -uroot -h127.0.0.1 -e 'select 1' >/dev/null 2>&1; then
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd || true
  wait_for mariadb "mariadb -uroot -h127.0.0.1 -e 'select 1'" || exit 1
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  wait_for redis "redis-cli -h 127.0.0.1 -p 6379 ping" || exit 1
fi
psql -h 127.0.0.1 -U postgres -tc "select 1 from pg_database where datname='test'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -c 'create database test' >/dev/null
mariadb -uroot -h127.0.0.1 -e 'create database if not exists test' >/dev/null
exit 0
