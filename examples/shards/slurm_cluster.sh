#!/usr/bin/env bash
# examples/shards/slurm_cluster.sh — a throw-away single-node Slurm cluster on localhost for
# the Slurm test (slurm_real_test.sh), sourced by it. Everything lives in one folder
# ($SLURM_TEST_DIR): a munge key and munged's socket, slurm.conf (free ports, one node with
# this machine's CPUs, proctrack/pgid and task/none, so no cgroups or systemd are needed),
# the controller's state and the node's spool. slurm_cluster_start starts munged, slurmctld
# and slurmd as the calling user (root here) and waits until the node is idle;
# slurm_cluster_stop stops them by the process ids they wrote. The clients (sbatch, squeue,
# scancel) find the cluster through SLURM_CONF, exported by slurm_cluster_start.

# Prints why a single-node cluster cannot run here (and returns 1), or nothing.
slurm_cluster_missing() {
    local tool
    for tool in munged slurmctld slurmd sbatch squeue scancel scontrol; do
        command -v "$tool" >/dev/null 2>&1 || { echo "'$tool' is not installed (scripts/install-deps.sh installs slurm-wlm and munge)"; return 1; }
    done
    [[ "$(id -u)" -eq 0 ]] || { echo "not root (the daemons of a test cluster run as root)"; return 1; }
    return 0
}

# A TCP port nobody listens on (asked from the kernel; without Python, a random high port).
slurm_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
        echo $((20000 + RANDOM % 40000))
}

# slurm_cluster_start DIR: writes the configuration under DIR and starts the daemons; returns
# 1 with the daemons' logs on stderr when they do not come up within 30 s.
slurm_cluster_start() {
    SLURM_TEST_DIR="$1"
    local d="$SLURM_TEST_DIR"
    mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log"
    chmod 711 "$d/munge"
    head -c 1024 /dev/urandom > "$d/munge/munge.key"
    chmod 400 "$d/munge/munge.key"
    munged --force --socket="$d/munge/socket" --key-file="$d/munge/munge.key" --pid-file="$d/munge/munged.pid" \
           --log-file="$d/log/munged.log" --seed-file="$d/munge/seed" || return 1

    local cpus sockets cores threads line
    line="$(slurmd -C | head -n 1)"
    cpus="$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$line")"
    sockets="$(sed -n 's/.* SocketsPerBoard=\([0-9]*\).*/\1/p' <<<"$line")"
    cores="$(sed -n 's/.* CoresPerSocket=\([0-9]*\).*/\1/p' <<<"$line")"
    threads="$(sed -n 's/.* ThreadsPerCore=\([0-9]*\).*/\1/p' <<<"$line")"
    SLURM_TEST_CPUS="$cpus"
    cat > "$d/slurm.conf" <<EOF
ClusterName=maxenttest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$(slurm_free_port)
SlurmdPort=$(slurm_free_port)
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/socket
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1,batch_sched_delay=0,sched_min_interval=0
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SlurmdTimeout=30
MinJobAge=600
NodeName=maxentnode NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$cpus SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads State=UNKNOWN
PartitionName=maxenttest Nodes=maxentnode Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF="$d/slurm.conf"
    slurmctld -i || return 1
    slurmd -N maxentnode || return 1
    local i state
    for i in $(seq 1 60); do
        state="$(sinfo -h -n maxentnode -o %t 2>/dev/null || true)"
        [[ "$state" == idle ]] && return 0
        sleep 0.5
    done
    echo "slurm_cluster_start: the node did not become idle (state '${state}')" >&2
    tail -n 20 "$d"/log/*.log >&2
    return 1
}

# Stops the daemons started by slurm_cluster_start (by their pid files, removed then), waiting
# up to 10 s each.
slurm_cluster_stop() {
    local d="${SLURM_TEST_DIR:-}" f pid i
    [[ -n "$d" ]] || return 0
    for f in "$d/slurmd.pid" "$d/slurmctld.pid" "$d/munge/munged.pid"; do
        [[ -s "$f" ]] || continue
        pid="$(cat "$f")"
        kill "$pid" 2>/dev/null || continue
        for i in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$f"
    done
}
