#!/usr/bin/env bash
# Docker engine and local images for the deployment tests. No registry is reachable: the base image is
# made with debootstrap and every other image is built FROM it with Debian packages. Reuses what exists.

BASE_IMAGE=slipway/debian-base:bookworm

ensure_docker_engine() {
  ensure_packages docker.io
  if ! docker info >/dev/null 2>&1; then
    log "starting dockerd"
    (dockerd >/tmp/slipway-dockerd.log 2>&1 &)
    local i
    for i in $(seq 1 100); do docker info >/dev/null 2>&1 && return 0; sleep 0.2; done
    echo "dockerd did not start; see /tmp/slipway-dockerd.log" >&2
    return 1
  fi
}

# The Debian mirror this machine's apt uses (one-line and deb822 sources), so an installation behind its own
# mirror builds from it; deb.debian.org otherwise. Security and update suites are not the base archive.
debian_mirror() {
  local uri
  uri=$(
    {
      grep -hsE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }'
      grep -hsE '^[[:space:]]*URIs:' /etc/apt/sources.list.d/*.sources | awk '{ for (i = 2; i <= NF; i++) print $i }'
    } | grep -v -e security -e '^$' | head -n 1
  )
  echo "${uri:-http://deb.debian.org/debian}"
}

ensure_base_image() {
  docker image inspect "$BASE_IMAGE" >/dev/null 2>&1 && return 0
  ensure_packages debootstrap
  log "building $BASE_IMAGE with debootstrap"
  local rootfs
  rootfs=$(mktemp -d /tmp/slipway-rootfs.XXXXXX)
  debootstrap --variant=minbase bookworm "$rootfs" "$(debian_mirror)" >/dev/null
  # The package caches would double the image for nothing.
  tar -C "$rootfs" --exclude='./var/cache/apt/archives/*.deb' --exclude='./var/lib/apt/lists/*' -c . |
    docker import --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
}

# ensure_image NAME DIR: builds images/DIR as slipway/NAME:bookworm unless an image of the same sources exists.
ensure_image() {
  local tag="slipway/$1:bookworm" source
  # A digest of the directory's files (not their times), so an edited Dockerfile or entrypoint is rebuilt.
  source=$(cd "images/$2" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
  [[ $(docker image inspect -f '{{ index .Config.Labels "slipway.source" }}' "$tag" 2>/dev/null) == "$source" ]] && return 0
  log "building $tag"
  docker build -q --label "slipway.source=$source" -t "$tag" "images/$2" >/dev/null
}

ensure_test_images() {
  ensure_docker_engine
  ensure_base_image
  # Built side by side; each failure is reported, not lost behind `wait`.
  local pids=() failed=0 pid
  ensure_image runtime-node runtime-node & pids+=($!)
  ensure_image runtime-python runtime-python & pids+=($!)
  ensure_image runtime-go runtime-go & pids+=($!)
  ensure_image runtime-static runtime-static & pids+=($!)
  # Stand-ins for the official database images, from Debian packages.
  ensure_image db-postgres db-postgres & pids+=($!)
  ensure_image db-mysql db-mysql & pids+=($!)
  ensure_image db-redis db-redis & pids+=($!)
  ensure_image db-clickhouse db-clickhouse & pids+=($!)
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  # test-web is built FROM runtime-python.
  ensure_image test-web test-web || failed=1
  return $failed
}
