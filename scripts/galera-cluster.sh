#!/usr/bin/env bash
# A MariaDB Galera cluster on this machine, for the cluster tests and the scale-out benchmark
# (docs/scale-out.md): up to three mariadbd processes with their own data directories under
# .data/cluster/nodeN, SQL ports 3311-3313, Galera ports 4571-4573, IST 4561-4563, SST (rsync) 4441-4443.
# The machine's own server on 3306 is never touched.
#
#   scripts/galera-cluster.sh start [N]     bootstrap node 1, join nodes 2..N (N = 3 by default)
#   scripts/galera-cluster.sh stop          stop every node, node 1 last (so it can bootstrap next time)
#   scripts/galera-cluster.sh kill I        kill -9 node I (a crash, for the failover tests)
#   scripts/galera-cluster.sh stop-node I   stop node I cleanly (the cluster goes on with the others)
#   scripts/galera-cluster.sh start-node I  start node I again; it rejoins (IST, or SST by rsync)
#   scripts/galera-cluster.sh status        each node's wsrep state
#   scripts/galera-cluster.sh url [N]       the DATABASE_URL hosts of nodes 1..N (h1:p1,h2:p2,…)
#
# Installs mariadb-server, galera-4 and rsync with apt-get when missing and running as root. Exits 3 with
# one line on stderr when the cluster cannot be had on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT="$PWD/.data/cluster"
HOST=127.0.0.1
BUFFER_POOL=${CLUSTER_BUFFER_POOL:-128M}
sql_port() { echo $((3310 + $1)); }
galera_port() { echo $((4570 + $1)); }

cannot() {
  echo "cluster unavailable: $*" >&2
  exit 3
}

find_server() {
  for candidate in /usr/sbin/mariadbd mariadbd /usr/sbin/mysqld; do
    if command -v "$candidate" >/dev/null 2>&1; then command -v "$candidate"; return 0; fi
  done
  return 1
}

find_provider() {
  local found
  found=$(dpkg -L galera-4 2>/dev/null | grep -m1 'libgalera_smm\.so$' || true)
  [ -n "$found" ] && [ -f "$found" ] && { echo "$found"; return 0; }
  for candidate in /usr/lib/galera/libgalera_smm.so /usr/lib/libgalera_smm.so /usr/lib64/galera-4/libgalera_smm.so; do
    [ -f "$candidate" ] && { echo "$candidate"; return 0; }
  done
  return 1
}

ensure_packages() {
  if find_server >/dev/null && find_provider >/dev/null && command -v rsync >/dev/null && command -v mariadb-install-db >/dev/null && command -v mariadb >/dev/null; then return 0; fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    cannot "mariadb-server, galera-4 and rsync are needed (apt-get install -y mariadb-server galera-4 rsync)"
  fi
  echo "installing mariadb-server galera-4 rsync" >&2
  # The package must not start or reconfigure a server of its own here.
  local policy=/usr/sbin/policy-rc.d created=""
  if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created=1; fi
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server galera-4 rsync) >&2 || true
  [ -n "$created" ] && rm -f "$policy"
  find_server >/dev/null && find_provider >/dev/null && command -v rsync >/dev/null || cannot "installing mariadb-server galera-4 rsync failed"
}

client() { # client I SQL…
  mariadb --protocol=tcp -h "$HOST" -P "$(sql_port "$1")" -uroot --connect-timeout=2 -N -B -e "$2"
}

wsrep_ready() { [ "$(client "$1" "SHOW STATUS LIKE 'wsrep_ready'" 2>/dev/null | cut -f2)" = ON ]; }

cluster_size() { client "$1" "SHOW STATUS LIKE 'wsrep_cluster_size'" 2>/dev/null | cut -f2; }

node_pid() {
  local pidfile="$ROOT/node$1/mariadbd.pid"
  [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && cat "$pidfile"
}

write_config() { # write_config I N
  local i=$1 n=$2 dir="$ROOT/node$1" members="" j
  for j in $(seq 1 "$n"); do members="$members${members:+,}$HOST:$(galera_port "$j")"; done
  cat >"$ROOT/node$i.cnf" <<EOF
[mysqld]
datadir=$dir/data
socket=$dir/mariadbd.sock
pid-file=$dir/mariadbd.pid
log-error=$dir/error.log
# A temporary directory of its own: at start a server deletes every '#sql*' file in its tmpdir, and with the
# machine's /tmp shared, each node (re)started deleted the temporary tables of the other servers' running
# statements ("Error on delete of '/tmp/#sql-temptable-….MAI' (Errcode: 2)").
tmpdir=$dir/tmp
port=$(sql_port "$i")
bind-address=$HOST
user=mysql
skip-name-resolve
performance_schema=OFF
innodb_buffer_pool_size=$BUFFER_POOL
innodb_log_file_size=48M
innodb_autoinc_lock_mode=2
binlog_format=ROW
default_storage_engine=InnoDB
max_connections=200
wsrep_on=ON
wsrep_provider=$(find_provider)
wsrep_cluster_name=odata_registers_cluster
wsrep_cluster_address=gcomm://$members
wsrep_node_name=node$i
wsrep_node_address=$HOST:$(galera_port "$i")
wsrep_node_incoming_address=$HOST:$(sql_port "$i")
wsrep_sst_method=rsync
wsrep_sst_receive_address=$HOST:$((4440 + i))
wsrep_provider_options="gmcast.listen_addr=tcp://$HOST:$(galera_port "$i");ist.recv_addr=$HOST:$((4560 + i));gcache.size=64M;pc.wait_prim_timeout=PT30S"
wsrep_slave_threads=2
EOF
}

start_node() { # start_node I N [bootstrap]
  local i=$1 n=$2 bootstrap=${3:-} dir="$ROOT/node$1" server
  server=$(find_server)
  if node_pid "$i" >/dev/null; then return 0; fi
  mkdir -p "$dir/data" "$dir/tmp"
  chown -R mysql:mysql "$dir" 2>/dev/null || true
  write_config "$i" "$n"
  if [ -n "$bootstrap" ]; then
    if [ ! -d "$dir/data/mysql" ]; then
      mariadb-install-db --defaults-file="$ROOT/node$i.cnf" --auth-root-authentication-method=normal --skip-test-db >"$dir/install.log" 2>&1 || cannot "initialising node $i failed (see .data/cluster/node$i/install.log)"
    fi
    # This node starts the cluster: its state is the cluster's (stop() leaves node 1 last, so it is newest).
    [ -f "$dir/data/grastate.dat" ] && sed -i 's/^safe_to_bootstrap: 0/safe_to_bootstrap: 1/' "$dir/data/grastate.dat"
    nohup "$server" --defaults-file="$ROOT/node$i.cnf" --wsrep-new-cluster >/dev/null 2>&1 &
  else
    nohup "$server" --defaults-file="$ROOT/node$i.cnf" >/dev/null 2>&1 &
  fi
}

wait_ready() { # wait_ready I SECONDS
  local i=$1 deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    if wsrep_ready "$i"; then return 0; fi
    sleep 0.5
  done
  return 1
}

grant_tcp_root() {
  # Connections come over TCP as root from 127.0.0.1 with an empty password, as on the single server;
  # CREATE USER and GRANT replicate to every node (total order isolation).
  mariadb --socket="$ROOT/node1/mariadbd.sock" -uroot -e "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''; GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION" \
    || cannot "could not grant root over TCP on node 1"
}

nodes_running() { local count=0 j; for j in 1 2 3; do node_pid "$j" >/dev/null && count=$((count + 1)); done; echo "$count"; }

start() {
  local n=${1:-3} i
  [ "$n" -ge 1 ] && [ "$n" -le 3 ] || cannot "between 1 and 3 nodes"
  ensure_packages
  mkdir -p "$ROOT"
  if [ "$(nodes_running)" = 0 ]; then
    start_node 1 "$n" bootstrap
    wait_ready 1 60 || cannot "node 1 did not bootstrap (see .data/cluster/node1/error.log)"
    grant_tcp_root
  fi
  for i in $(seq 2 "$n"); do
    start_node "$i" "$n"
    wait_ready "$i" 120 || cannot "node $i did not join (see .data/cluster/node$i/error.log)"
  done
  local size
  size=$(cluster_size 1)
  [ "$size" = "$n" ] || cannot "cluster size is $size, expected $n"
  echo "galera cluster of $n node(s) ready: $(url "$n")"
}

stop_node() {
  local pid
  pid=$(node_pid "$1") || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
}

stop() {
  stop_node 3
  stop_node 2
  stop_node 1
  echo "galera cluster stopped"
}

kill_node() {
  local pid
  pid=$(node_pid "$1") || { echo "node $1 is not running" >&2; return 1; }
  kill -9 "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  echo "node $1 killed"
}

restart_node() {
  local i=$1 n
  n=$(grep -o 'gcomm://[^ ]*' "$ROOT/node$i.cnf" 2>/dev/null | tr ',' '\n' | wc -l)
  [ "$n" -ge 1 ] || n=3
  start_node "$i" "$n"
  wait_ready "$i" 120 || cannot "node $i did not rejoin (see .data/cluster/node$i/error.log)"
  echo "node $i rejoined"
}

status() {
  local i
  for i in 1 2 3; do
    if node_pid "$i" >/dev/null; then
      echo "node $i (port $(sql_port "$i")): $(client "$i" "SHOW STATUS WHERE Variable_name IN ('wsrep_local_state_comment','wsrep_cluster_size','wsrep_ready')" 2>/dev/null | tr '\t\n' '= ' || echo unreachable)"
    else
      echo "node $i: stopped"
    fi
  done
}

url() {
  local n=${1:-3} i hosts=""
  for i in $(seq 1 "$n"); do hosts="$hosts${hosts:+,}$HOST:$(sql_port "$i")"; done
  echo "$hosts"
}

case "${1:-}" in
  start) start "${2:-3}" ;;
  stop) stop ;;
  kill) kill_node "$2" ;;
  start-node) restart_node "$2" ;;
  stop-node) stop_node "$2" && echo "node $2 stopped" ;;
  status) status ;;
  url) url "${2:-3}" ;;
  *) echo "usage: $0 start [N] | stop | kill I | stop-node I | start-node I | status | url [N]" >&2; exit 2 ;;
esac
