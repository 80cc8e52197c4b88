#!/usr/bin/env bash
# A single-node Slurm cluster on loopback, for running `thumbnailer warm` as an array job:
# MariaDB (for accounting, so sacct works), slurmdbd, slurmctld and slurmd, all kept in one
# directory, on free loopback ports, as the current user, with AuthType=auth/none (no munge:
# this cluster never leaves the machine).
#
#   scripts/slurm.sh start DIR   start it; prints `export SLURM_CONF=DIR/slurm.conf` for sbatch, sacct, …
#   scripts/slurm.sh stop DIR    stop every daemon it started
#
# Needs Debian's slurm-wlm, slurmdbd and mariadb-server (their services need not run: this
# script starts its own daemons).
set -euo pipefail
command=${1:-}
dir=$(realpath -m "${2:-.slurm}")

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

stop() {
    for daemon in slurmd slurmctld slurmdbd mariadbd; do
        pid=$(cat "$dir/$daemon.pid" 2>/dev/null) || continue
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        rm -f "$dir/$daemon.pid"
    done
}

# Waits up to 30 s for `$@` to succeed.
wait_for() {
    for _ in $(seq 300); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "slurm: gave up waiting for: $*" >&2
    return 1
}

case "$command" in
start)
    for tool in slurmctld slurmd slurmdbd sbatch sacct mariadbd mariadb-install-db; do
        command -v "$tool" >/dev/null || { echo "slurm: needs $tool (Debian: slurm-wlm slurmdbd mariadb-server)" >&2; exit 1; }
    done
    stop
    mkdir -p "$dir/state" "$dir/spool" "$dir/log"
    user=$(id -un)
    node=$(hostname -s)
    mysql_port=$(free_port); dbd_port=$(free_port); ctld_port=$(free_port); slurmd_port=$(free_port)
    while [ "$dbd_port" = "$mysql_port" ]; do dbd_port=$(free_port); done
    while [ "$ctld_port" = "$mysql_port" ] || [ "$ctld_port" = "$dbd_port" ]; do ctld_port=$(free_port); done
    while [ "$slurmd_port" = "$ctld_port" ] || [ "$slurmd_port" = "$dbd_port" ] || [ "$slurmd_port" = "$mysql_port" ]; do
        slurmd_port=$(free_port)
    done

    # MariaDB, on its own data directory and a loopback port, with a user for slurmdbd.
    if [ ! -d "$dir/mysql/mysql" ]; then
        mariadb-install-db --no-defaults --datadir="$dir/mysql" --user="$user" --auth-root-authentication-method=socket \
            --skip-test-db >"$dir/log/mariadb-install.log" 2>&1
    fi
    mariadbd --no-defaults --datadir="$dir/mysql" --socket="$dir/mysql.sock" --port="$mysql_port" \
        --bind-address=127.0.0.1 --pid-file="$dir/mariadbd.pid" --user="$user" --skip-log-bin \
        >"$dir/log/mariadbd.log" 2>&1 &
    wait_for mariadb --no-defaults --socket="$dir/mysql.sock" -u root -e 'select 1'
    mariadb --no-defaults --socket="$dir/mysql.sock" -u root -e \
        "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm';
         GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"

    cat >"$dir/slurmdbd.conf" <<CONF
AuthType=auth/none
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=$user
PidFile=$dir/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$mysql_port
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
CONF
    chmod 600 "$dir/slurmdbd.conf"

    cat >"$dir/slurm.conf" <<CONF
ClusterName=thumbnailer
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/none
# A requeued job waits cred_expire seconds before it may start again (120 by default), and
# the scheduler looks at pending jobs every sched_interval (60): short, for a one-node cluster.
AuthInfo=cred_expire=10
CredType=cred/none
SchedulerParameters=sched_interval=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobRequeue=1
# warm's exit status when a run again may finish what this one could not (EX_TEMPFAIL):
# Slurm requeues the task, and the run again does only what is missing.
RequeueExit=75
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
    export SLURM_CONF="$dir/slurm.conf"

    # slurmdbd reads slurmdbd.conf beside $SLURM_CONF.
    slurmdbd >"$dir/log/slurmdbd.out" 2>&1
    wait_for test -s "$dir/slurmdbd.pid"
    wait_for sacctmgr -i add cluster thumbnailer
    slurmctld -f "$dir/slurm.conf" >"$dir/log/slurmctld.out" 2>&1
    slurmd -f "$dir/slurm.conf" >"$dir/log/slurmd.out" 2>&1
    wait_for bash -c "sinfo -h -o %T | grep -qx idle"
    echo "export SLURM_CONF=$dir/slurm.conf"
    ;;
stop)
    stop
    ;;
*)
    sed -n '2,12p' "$0" >&2
    exit 64
    ;;
esac
