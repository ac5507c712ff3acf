#!/usr/bin/env bash
# Docker engine and local images for the deployment tests. No registry is reachable: the base image is
# made with debootstrap and every other image is built FROM it with Debian packages. Reuses what exists.

# SLIPWAY_IMAGE_PREFIX (slipway) names every local image: <prefix>/<name>:bookworm. Another prefix builds a separate set
# from scratch, base image included (bench/first-hour.ts times a fresh machine's images that way, leaving the
# suite's images alone).
IMAGE_PREFIX=${SLIPWAY_IMAGE_PREFIX:-slipway}
BASE_IMAGE=$IMAGE_PREFIX/debian-base:bookworm

ensure_docker_engine() {
  ensure_packages docker.io
  if ! docker info >/dev/null 2>&1; then
    log "starting dockerd"
    # Every project has its own network, and Docker's default pools hold about 30; a /16 in /24s holds 256.
    # A pool set in daemon.json wins (dockerd refuses the same setting twice).
    local pools=(--default-address-pool base=10.213.0.0/16,size=24)
    grep -qs default-address-pools /etc/docker/daemon.json && pools=()
    (dockerd "${pools[@]}" >/tmp/slipway-dockerd.log 2>&1 &)
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

# images/DIR/npm-packages: files the build context gets from the npm registry (`FILE SPEC` a line, ARCH
# replaced by x64 or arm64), fetched at build time so the pinned versions, not the tarballs, make the digest.
fetch_npm_packages() {
  local dir=$1 context=$2 arch file spec packed
  case $(uname -m) in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "no Node binaries for $(uname -m)" >&2; return 1 ;;
  esac
  while read -r file spec; do
    [[ -z $file || $file == \#* ]] && continue
    packed=$(cd "$context" && npm pack --silent "${spec//ARCH/$arch}" | tail -n 1)
    mv "$context/$packed" "$context/$file"
  done <"images/$dir/npm-packages"
}

# ensure_image NAME DIR: builds images/DIR as <prefix>/NAME:bookworm unless an image of the same sources exists;
# prints `built` or `up to date`.
ensure_image() {
  local tag="$IMAGE_PREFIX/$1:bookworm" source context status=0
  # A digest of the directory's files (not their times), so an edited Dockerfile or entrypoint is rebuilt.
  source=$(cd "images/$2" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
  if [[ $(docker image inspect -f '{{ index .Config.Labels "slipway.source" }}' "$tag" 2>/dev/null) == "$source" ]]; then
    echo "up to date"
    return 0
  fi
  context="images/$2"
  if [[ -f "images/$2/npm-packages" || $IMAGE_PREFIX != slipway ]]; then
    context=$(mktemp -d /tmp/slipway-image.XXXXXX)
    cp -r "images/$2/." "$context"
    # The Dockerfiles build FROM slipway/…: under another prefix, FROM that prefix's images.
    [[ $IMAGE_PREFIX == slipway ]] || sed -i "s#^FROM slipway/#FROM $IMAGE_PREFIX/#" "$context/Dockerfile"
    [[ -f "images/$2/npm-packages" ]] && { fetch_npm_packages "$2" "$context" || status=$?; }
  fi
  ((status == 0)) && { docker build -q --label "slipway.source=$source" -t "$tag" "$context" >/dev/null || status=$?; }
  [[ $context == "images/$2" ]] || rm -rf "$context"
  ((status == 0)) && echo "built"
  return $status
}

# One line per image, with its time; the build's own output only when it failed.
report_image() {
  local started=$SECONDS output
  if output=$(ensure_image "$1" "$2" 2>&1); then
    printf '%-10s %s/%s:bookworm (%d s)\n' "$(tail -n 1 <<<"$output")" "$IMAGE_PREFIX" "$1" $((SECONDS - started))
  else
    printf 'FAILED     %s/%s:bookworm (%d s)\n%s\n' "$IMAGE_PREFIX" "$1" $((SECONDS - started)) "$(sed 's/^/    /' <<<"$output")" >&2
    return 1
  fi
}

# build_images NAME:DIR... : at most SLIPWAY_IMAGE_JOBS (2) builds at a time; fails when any failed.
# Waits on each build by its pid, oldest first: `wait -n` loses the status of a build that ended before it was
# called (bash 5.2), which counted an up-to-date image as failed.
build_images() {
  local jobs=${SLIPWAY_IMAGE_JOBS:-2} failed=0 spec
  local -a pids=()
  if [[ ! $jobs =~ ^[1-9][0-9]*$ ]]; then
    echo "SLIPWAY_IMAGE_JOBS must be a positive whole number, not '$jobs'" >&2
    return 1
  fi
  for spec in "$@"; do
    if ((${#pids[@]} >= jobs)); then
      wait "${pids[0]}" || failed=$((failed + 1))
      pids=("${pids[@]:1}")
    fi
    report_image "${spec%%:*}" "${spec#*:}" &
    pids+=($!)
  done
  for spec in "${pids[@]}"; do wait "$spec" || failed=$((failed + 1)); done
  ((failed == 0)) || { echo "$failed image build(s) failed" >&2; return 1; }
}

# Every local image: SHORT NAME (what `npm run images -- NAME…` takes), directory under images/ (also the image's
# name), what it is built FROM among these (base: the debootstrap image), and its settings (SETTING:VARIABLE,
# comma-separated). The runtime of Go binaries is the base image itself; TimescaleDB is not in Debian, and the
# Postgres stand-in follows the same contract. test-web is the quick start's web app.
LOCAL_IMAGES=(
  "node runtime-node base packNodeImage:SLIPWAY_PACK_NODE_IMAGE"
  "python runtime-python base packPythonImage:SLIPWAY_PACK_PYTHON_IMAGE"
  "go runtime-go base packGoImage:SLIPWAY_PACK_GO_IMAGE"
  "static runtime-static base packStaticImage:SLIPWAY_PACK_STATIC_IMAGE"
  "postgres db-postgres base dbImagePostgres:SLIPWAY_DB_IMAGE_POSTGRES,dbImageTimeseries:SLIPWAY_DB_IMAGE_TIMESERIES"
  "mysql db-mysql base dbImageMysql:SLIPWAY_DB_IMAGE_MYSQL"
  "redis db-redis base dbImageRedis:SLIPWAY_DB_IMAGE_REDIS"
  "clickhouse db-clickhouse base dbImageColumnar:SLIPWAY_DB_IMAGE_COLUMNAR"
  "cluster-registry cluster-registry base -"
  "cluster-caddy cluster-caddy base -"
  "cluster-agent cluster-agent base -"
  "web test-web python -"
)
# The base image's own setting (the runtime of Go binaries); `npm run images -- base` builds only it.
BASE_SETTINGS="packRunImage:SLIPWAY_PACK_RUN_IMAGE"

image_names() { local line; for line in "${LOCAL_IMAGES[@]}"; do echo "${line%% *}"; done; }

# image_field NAME FIELD(2 dir, 3 from, 4 settings): a field of an image's line; fails for an unknown name. The
# directory name (db-postgres) is accepted as well as the short one (postgres).
image_field() {
  local line f
  for line in "${LOCAL_IMAGES[@]}"; do
    read -ra f <<<"$line"
    if [[ $1 == "${f[0]}" || $1 == "${f[1]}" ]]; then
      echo "${f[$(($2 - 1))]}"
      return 0
    fi
  done
  return 1
}

# ensure_images [NAME...]: the base image, then the named images and what they are built FROM (all of them when
# none is named): first every image built FROM the base, two at a time, then those built FROM one of these.
ensure_images() {
  local name from wanted=() first=() second=() unknown=()
  for name in "$@"; do
    [[ $name == base ]] && continue
    if ! image_field "$name" 1 >/dev/null; then unknown+=("$name"); continue; fi
    name=$(image_field "$name" 1)
    wanted+=("$name")
    from=$(image_field "$name" 3)
    [[ $from == base ]] || wanted+=("$from")
  done
  if ((${#unknown[@]})); then
    echo "no image named ${unknown[*]}; the images are: base $(image_names | tr '\n' ' ')(none: all)" >&2
    return 2
  fi
  (($# == 0)) && mapfile -t wanted < <(image_names)
  ensure_docker_engine
  ensure_base_image
  for name in $(image_names); do
    printf '%s\n' "${wanted[@]}" | grep -qx -- "$name" || continue
    if [[ $(image_field "$name" 3) == base ]]; then first+=("$(image_field "$name" 2):$(image_field "$name" 2)"); else second+=("$(image_field "$name" 2):$(image_field "$name" 2)"); fi
  done
  if ((${#first[@]})); then build_images "${first[@]}" || return 1; fi
  if ((${#second[@]})); then build_images "${second[@]}" || return 1; fi
}

# What the test suite and the benchmarks use: every image.
ensure_test_images() { ensure_images; }

# Both ways to point Slipway at the stand-ins: the environment at start, or the settings of a running server.
# print_image_settings [NAME...]: only the settings of the named images (all when none is named).
print_image_settings() {
  local name names=("$@") pair settings=() env=() cli=() image
  ((${#names[@]})) || names=(base $(image_names))
  for name in "${names[@]}"; do
    if [[ $name == base ]]; then
      pair=$BASE_SETTINGS image=$BASE_IMAGE
    else
      pair=$(image_field "$name" 4) image="$IMAGE_PREFIX/$(image_field "$name" 2):bookworm"
    fi
    [[ $pair == - ]] && continue
    IFS=, read -ra settings <<<"$pair"
    for pair in "${settings[@]}"; do
      env+=("${pair#*:}=$image")
      cli+=("${pair%%:*}=$image")
    done
  done
  ((${#cli[@]})) || return 0
  echo
  echo "Point Slipway at these images, either in its environment (read at start):"
  printf '  %s\n' "${env[@]}"
  echo "or as settings of a running server (no restart):"
  echo "  slipway settings set ${cli[*]}"
  (($#)) || echo "No stand-in for mongodb (MongoDB is not in Debian): dbImageMongodb / SLIPWAY_DB_IMAGE_MONGODB stays the official mongo:7, pulled from Docker Hub."
}
