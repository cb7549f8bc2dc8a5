#!/usr/bin/env bash
# Makes sure a MySQL-protocol server answers before the service or the tests need it:
#   1. DATABASE_URL set: it must answer; nothing is started.
#   2. Otherwise 127.0.0.1:3306 (root, empty password) answers: done.
#   3. Otherwise, when running as root with the system's data directory initialised, start the
#      system's MariaDB/MySQL server (the machine's own service, stopped).
#   4. Otherwise start a private server from the installed mariadbd/mysqld with its data under .data/,
#      initialising it on first use.
#   5. No server binary installed: say so in one line, with the command that installs one.
set -euo pipefail
cd "$(dirname "$0")/.."

ping_db() { node scripts/db-ping.mjs "$@" >/dev/null 2>&1; }

if [ -n "${DATABASE_URL:-}" ]; then
  if node scripts/db-ping.mjs; then exit 0; fi
  echo "error: no MySQL server answers at DATABASE_URL; start it or unset DATABASE_URL to use a local one" >&2
  exit 1
fi

if ping_db; then exit 0; fi

server=""
for candidate in mariadbd mysqld /usr/sbin/mariadbd /usr/sbin/mysqld /usr/libexec/mysqld; do
  if command -v "$candidate" >/dev/null 2>&1; then server=$(command -v "$candidate"); break; fi
done
if [ -z "$server" ]; then
  echo "error: no MySQL server answers at 127.0.0.1:3306 and none is installed; install one with: apt-get install -y mariadb-server (or set DATABASE_URL)" >&2
  exit 1
fi

wait_for_server() {
  for _ in $(seq 1 60); do
    if ping_db; then return 0; fi
    sleep 0.5
  done
  return 1
}

if [ "$(id -u)" = 0 ] && [ -d /var/lib/mysql/mysql ] && command -v start-stop-daemon >/dev/null 2>&1; then
  echo "starting the system's MySQL server ($server)"
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld 2>/dev/null || true
  start-stop-daemon --start --oknodo --background --exec "$server" -- --user=mysql >/dev/null 2>&1 || true
  if wait_for_server; then exit 0; fi
  echo "the system's server did not answer; starting a private one under .data/" >&2
fi

datadir="$PWD/.data/mysql"
mkdir -p "$datadir"
user_option="--user=$(id -un)"
if [ ! -d "$datadir/mysql" ]; then
  echo "initialising a private MySQL data directory in .data/mysql"
  if command -v mariadb-install-db >/dev/null 2>&1 || command -v mysql_install_db >/dev/null 2>&1; then
    installer=$(command -v mariadb-install-db || command -v mysql_install_db)
    "$installer" --datadir="$datadir" "$user_option" --auth-root-authentication-method=normal --skip-test-db >.data/mysql-install.log 2>&1
  else
    "$server" --initialize-insecure --datadir="$datadir" "$user_option" >.data/mysql-install.log 2>&1
  fi
fi
echo "starting a private MySQL server on 127.0.0.1:3306 (data in .data/mysql, log in .data/mysql.log)"
nohup "$server" --datadir="$datadir" "$user_option" --bind-address=127.0.0.1 --port=3306 \
  --socket="$PWD/.data/mysql.sock" --pid-file="$PWD/.data/mysql.pid" --log-error="$PWD/.data/mysql.log" \
  >/dev/null 2>&1 &
if wait_for_server; then exit 0; fi
echo "error: the private MySQL server did not start; see .data/mysql.log" >&2
exit 1
