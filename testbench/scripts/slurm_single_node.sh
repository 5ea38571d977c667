#!/usr/bin/env bash
# Throwaway single-node Slurm cluster (munged + slurmctld + slurmd) for tests and CI.
#
#   slurm_single_node.sh start STATEDIR   # prints SLURM_CONF=STATEDIR/slurm.conf on success
#   slurm_single_node.sh stop  STATEDIR   # idempotent
#
# Every file (config, munge key and socket, state, spool, logs, pid files) lives in
# STATEDIR; /etc/slurm, /etc/munge, /run and /var are never touched. Meant for root; as
# another user it also works but every job runs as that user. No systemd, no cgroups, no
# accounting (finished jobs' ExitCode is logged to STATEDIR/log/jobcomp.log instead).
# Ports are derived from a hash of STATEDIR, so instances with different STATEDIRs can
# run side by side. Needs Debian packages: munge slurmctld slurmd slurm-client.
# SLURM_SINGLE_NODE_TIMEOUT (default 60): seconds start waits for the node to become idle.
# Exit status of start: 0 ok, 77 slurm/munge not installed (test skip), 1 any other failure.
set -euo pipefail
shopt -s nullglob

usage() { echo "usage: $0 start|stop STATEDIR (absolute path)" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
cmd=$1
dir=${2%/}
[[ $dir == /?* ]] || usage

# Daemons live in /usr/sbin, which is not on a non-root user's PATH on Debian.
PATH=$PATH:/usr/sbin:/sbin
conf=$dir/slurm.conf
sock=$dir/munge/munge.socket.2
start_timeout=${SLURM_SINGLE_NODE_TIMEOUT:-60}

# Our daemons are recognised by STATEDIR on their command line, not by pid files (a daemon
# may die before writing one; pids get recycled). Scans /proc with builtins only: procps
# (pgrep) is not in a minimal Debian image, and this runs in polling loops.
our_pids() {
    local p comm args
    for p in /proc/[0-9]*; do
        { read -r comm <"$p/comm"; } 2>/dev/null || continue
        [[ $comm == "$1" ]] || continue
        { mapfile -d '' args <"$p/cmdline"; } 2>/dev/null || continue
        [[ " ${args[*]}" == *[\ =]"$dir/"* ]] && echo "${p#/proc/}"
    done
    return 0
}

stop_daemon() {
    local name=$1 pids i
    pids=$(our_pids "$name")
    [[ -n $pids ]] || return 0
    # shellcheck disable=SC2086 # word splitting of the pid list is intended
    kill -TERM $pids 2>/dev/null || true
    for ((i = 0; i < 150; i++)); do  # slurmctld saves state on TERM; give it up to 15 s
        [[ -z $(our_pids "$name") ]] && return 0
        sleep 0.1
    done
    echo "slurm_single_node: $name did not exit on SIGTERM, sending SIGKILL" >&2
    pids=$(our_pids "$name")
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    sleep 0.2
}

do_stop() {
    # Cancel leftover jobs first so no slurmstepd/job processes outlive the cluster.
    if [[ -n $(our_pids slurmctld) ]] && command -v scancel >/dev/null; then
        local jobs i
        jobs=$(SLURM_CONF=$conf timeout 10 squeue -h -o %A 2>/dev/null || true)
        if [[ -n $jobs ]]; then
            # shellcheck disable=SC2086
            SLURM_CONF=$conf timeout 10 scancel $jobs 2>/dev/null || true
            for ((i = 0; i < 50; i++)); do
                [[ -z $(SLURM_CONF=$conf timeout 5 squeue -h -o %A 2>/dev/null) ]] && break
                sleep 0.2
            done
        fi
    fi
    stop_daemon slurmd
    stop_daemon slurmctld
    stop_daemon munged
    rm -f "$dir"/run/*.pid
}

fail() {
    local f msg="slurm_single_node: start failed: $*"
    trap - ERR
    for f in "$dir"/log/*; do
        [[ -s $f ]] && msg+=$'\n'"----- tail of $f -----"$'\n'$(tail -n 25 "$f")
    done
    do_stop  # before reporting, so a closed stderr (SIGPIPE) cannot skip the cleanup
    printf '%s\n' "$msg" >&2 || true
    exit 1
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

do_start() {
    local missing=() b
    for b in munged munge unmunge slurmctld slurmd sinfo squeue scancel; do
        command -v "$b" >/dev/null || missing+=("$b")
    done
    if ((${#missing[@]})); then
        echo "slurm_single_node: not installed: ${missing[*]}" \
            "(apt-get install -y munge slurmctld slurmd slurm-client)" >&2
        exit 77
    fi
    [[ $(id -u) -eq 0 ]] || echo "slurm_single_node: note: not root, so every job runs as" \
        "$(id -un)" >&2
    # Unix socket paths are limited to 108 bytes (munge socket, slurmd's step sockets).
    ((${#dir} <= 60)) || { echo "slurm_single_node: STATEDIR path too long (${#dir} > 60" \
        "chars; unix socket limit): $dir" >&2; exit 1; }

    do_stop  # a previous instance on this STATEDIR would hold the ports/pid files
    # From here on any unexpected failure still reports, shows logs and cleans up.
    set -E
    trap 'fail "command failed (line $LINENO): $BASH_COMMAND"' ERR
    mkdir -p "$dir"/{munge,ctld,spool,log,run}
    # munged wants the socket dir world-searchable and not group/world-writable; other
    # users' sbatch/squeue must also reach slurm.conf and the socket.
    chmod 0755 "$dir" "$dir/munge"
    for b in munged slurmctld slurmd jobcomp; do : >"$dir/log/$b.log"; done

    local host node port i
    host=$(hostname -s 2>/dev/null || uname -n); host=${host%%.*}
    # slurmd -C reports CPUs/sockets/cores/RealMemory as slurmd will see them; drop UpTime.
    node=$(slurmd -C 2>/dev/null | sed -n 's/ UpTime=.*//; /^NodeName=/p') || true
    [[ -n $node ]] || fail "'slurmd -C' did not report this node's hardware"
    node="NodeName=$host ${node#NodeName=* }"

    # Port pair from a hash of STATEDIR (stable across restarts); step on if taken.
    port=$(( 20000 + ($(cksum <<<"$dir" | cut -d' ' -f1) % 4000) * 2 ))
    for ((i = 0; i < 20; i++)); do
        port_in_use "$port" || port_in_use $((port + 1)) || break
        port=$((port + 2))
    done
    ((i < 20)) || fail "no free port pair found near $port"

    cat >"$conf" <<EOF
# Generated by ${0##*/} for a throwaway single-node cluster.
ClusterName=wsc
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No cgroups / systemd: plain process tracking, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
# No accounting database; finished jobs are logged (with ExitCode) to a text file instead.
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.log
ReturnToService=2
# Schedule at once instead of every few seconds: short test jobs finish ~3x sooner.
SchedulerParameters=batch_sched_delay=0,sched_interval=1
MailProg=/bin/true
$node NodeAddr=127.0.0.1 NodeHostname=$host State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    # Read by the cgroup plugin if one is ever loaded; nothing here uses cgroups.
    echo "CgroupPlugin=autodetect" >"$dir/cgroup.conf"

    # Fresh random key each start; munged insists on mode 0600 and our ownership.
    (umask 077; head -c 1024 /dev/urandom >"$dir/munge/munge.key")

    # Daemons get stdin/stdout/stderr away from ours: a caller doing $(... start ...) or
    # ctest would otherwise wait for EOF until the daemons exit.
    munged --socket="$sock" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
        --seed-file="$dir/munge/munged.seed" </dev/null >>"$dir/log/munged.log" 2>&1 \
        || fail "munged did not start"
    munge -n -S "$sock" 2>>"$dir/log/munged.log" | unmunge -S "$sock" >/dev/null \
        2>>"$dir/log/munged.log" || fail "munge credential round trip failed"

    export SLURM_CONF=$conf
    # -c: start from clean state (no jobs or node state from an earlier run).
    slurmctld -c -f "$conf" </dev/null >>"$dir/log/slurmctld.log" 2>&1 \
        || fail "slurmctld did not start"
    slurmd -c -f "$conf" -N "$host" </dev/null >>"$dir/log/slurmd.log" 2>&1 \
        || fail "slurmd did not start"

    local state=""
    for ((i = 0; i < start_timeout * 2; i++)); do
        state=$(timeout 5 sinfo -h -n "$host" -o %t 2>/dev/null || true)
        [[ $state == idle ]] && { echo "SLURM_CONF=$conf"; return 0; }
        [[ -n $(our_pids slurmctld) ]] || fail "slurmctld exited"
        [[ -n $(our_pids slurmd) ]] || fail "slurmd exited"
        sleep 0.5
    done
    fail "node $host not idle after ${start_timeout}s (state: '${state:-no answer}')"
}

case $cmd in
    start) do_start ;;
    stop) do_stop ;;
    *) usage ;;
esac
