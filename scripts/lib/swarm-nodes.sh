#!/usr/bin/env bash
# Docker engines in network namespaces on this machine, for the cluster tests: each is a node of a Swarm that
# never touches the host's own engine (other tests use it at the same time). The recipe and its traps are in
# ../shared/SWARM-NOTES.md: `ip netns exec` cannot run dockerd (it remounts /sys), so nsenter + unshare remounts
# sysfs and the cgroup tree itself.
#
#   swarm_node_start IDX DIR [nnp]
#                              node IDX (1-9) at 100.115.0.(10+IDX) on one bridge with the host (100.115.0.1);
#                              its engine's socket at DIR/docker.sock; fails if it did not start. With `nnp`, its
#                              daemon starts every container with no-new-privileges (daemon.json)
#   swarm_node_stop IDX DIR    kills the engine and removes the namespace, the veth pair and DIR
#   swarm_net_down             removes the bridge unless a node is left
set -euo pipefail

SWARM_BRIDGE=slipway-sw0
# Empty on the host; in each node's mount namespace, a private tmpfs where its engine also listens, so the
# agent's bind mount of SLIPWAY_CLUSTER_NODE_SOCKET finds the node's own engine, never the host's.
SWARM_NODE_RUN=/run/slipway-test-node
swarm_node_ns() { echo "slipway-n$1"; }
swarm_node_address() { echo "100.115.0.$((10 + $1))"; }

# One bridge for all nodes. The host's Docker sets FORWARD's policy to DROP and bridged frames pass through
# iptables (br_netfilter): the nodes' own traffic (Swarm's 2377, 7946, 4789) is let through explicitly.
# Test files start nodes at the same time: each step tolerates another file having done it first.
# Its MAC is fixed: a bridge otherwise takes its lowest port's, and changes it when another file's node leaves,
# so the nodes' cached neighbour entry for the host (100.115.0.1) may name a MAC that is gone.
swarm_net_up() {
  ip link add "$SWARM_BRIDGE" address 02:73:6c:77:79:01 type bridge 2>/dev/null || ip link show "$SWARM_BRIDGE" >/dev/null
  ip addr replace 100.115.0.1/24 dev "$SWARM_BRIDGE"
  ip link set "$SWARM_BRIDGE" up
  iptables -C FORWARD -i "$SWARM_BRIDGE" -o "$SWARM_BRIDGE" -j ACCEPT 2>/dev/null ||
    iptables -I FORWARD 1 -i "$SWARM_BRIDGE" -o "$SWARM_BRIDGE" -j ACCEPT
}

swarm_net_down() {
  ip link show "$SWARM_BRIDGE" >/dev/null 2>&1 || return 0
  # Another test file's nodes still use it.
  ip netns list | grep -q '^slipway-n' && return 0
  iptables -D FORWARD -i "$SWARM_BRIDGE" -o "$SWARM_BRIDGE" -j ACCEPT 2>/dev/null || true
  ip link del "$SWARM_BRIDGE"
}

swarm_node_start() {
  local idx=$1 dir=$2 nnp=${3:-} ns extra=''
  ns=$(swarm_node_ns "$idx")
  [[ $nnp == nnp ]] && extra=', "no-new-privileges": true'
  mkdir -p "$dir/data" "$dir/exec" "$dir/cg"
  swarm_net_up
  # A node of the same index left by a run that was killed: its engine and namespace go first.
  if ip netns list | grep -qx "$ns\( .*\)\?"; then
    ip netns pids "$ns" | xargs -r kill -9 2>/dev/null || true
    ip link del "sw$idx-h" 2>/dev/null || true
    ip netns del "$ns"
  fi
  ip netns add "$ns"
  # Each engine also listens at the same path in its own mount namespace: the socket a node's agent mounts.
  mkdir -p "$SWARM_NODE_RUN"
  ip link add "sw$idx-h" type veth peer name "sw$idx-n"
  ip link set "sw$idx-n" netns "$ns"
  ip link set "sw$idx-h" master "$SWARM_BRIDGE" up
  ip -n "$ns" addr add "$(swarm_node_address "$idx")/24" dev "sw$idx-n"
  ip -n "$ns" link set "sw$idx-n" up
  ip -n "$ns" link set lo up
  ip -n "$ns" route add default via 100.115.0.1
  # Its own bridge and address pool: nothing overlaps the host's engine or another node.
  ip -n "$ns" link add "br$idx" type bridge
  ip -n "$ns" addr add "10.$((220 + idx)).0.1/24" dev "br$idx"
  ip -n "$ns" link set "br$idx" up
  cat >"$dir/daemon.json" <<JSON
{ "default-address-pools": [{ "base": "10.$((220 + idx)).128.0/17", "size": 24 }], "iptables": true, "log-level": "warn"$extra }
JSON
  # No name server answers inside the namespace: the engine's lookups (an image service's tag on Docker Hub)
  # would wait 20 s for a timeout each. A loopback one is refused at once.
  echo 'nameserver 127.0.0.1' >"$dir/resolv.conf"
  nsenter --net="/run/netns/$ns" unshare --mount --uts --propagation slave sh -c "
    hostname node$idx
    mount --bind '$dir/resolv.conf' /etc/resolv.conf
    mount --rbind /sys/fs/cgroup '$dir/cg'
    mount -t sysfs sysfs /sys
    mount --move '$dir/cg' /sys/fs/cgroup
    mount -t tmpfs -o mode=0700 tmpfs '$SWARM_NODE_RUN'
    exec dockerd --config-file '$dir/daemon.json' --data-root '$dir/data' --exec-root '$dir/exec' \
      --pidfile '$dir/dockerd.pid' -H 'unix://$dir/docker.sock' -H 'unix://$SWARM_NODE_RUN/docker.sock' --bridge 'br$idx'" >"$dir/dockerd.log" 2>&1 &
  local i
  for i in $(seq 1 150); do
    docker -H "unix://$dir/docker.sock" info >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  echo "the engine of node $idx did not start; see $dir/dockerd.log" >&2
  return 1
}

swarm_node_stop() {
  local idx=$1 dir=$2 ns pid
  ns=$(swarm_node_ns "$idx")
  if [[ -f $dir/dockerd.pid ]]; then
    pid=$(cat "$dir/dockerd.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  ip link del "sw$idx-h" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
  # Containers' mounts die with the namespace; what is left is plain files.
  rm -rf "$dir" 2>/dev/null || true
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  "$@"
fi
