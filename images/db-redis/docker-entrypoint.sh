#!/bin/sh
# Follows the official redis image's entrypoint. Like it, no variable sets a password: a password reaches the
# server in its configuration file (a first argument ending in `.conf`) or as `--requirepass` in the command.
set -e
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then set -- redis-server "$@"; fi
if [ "$1" = 'redis-server' ] && [ "$(id -u)" = '0' ]; then
  find . \! -user redis -exec chown redis '{}' +
  exec gosu redis "$0" "$@"
fi
# As the official image: files the server writes are its own only, unless a umask was chosen.
if [ "$(umask)" = '0022' ]; then umask 0077; fi
# The official image is built with protected mode off (a container is reached through its network); Debian's is not.
if [ "$1" = 'redis-server' ]; then
  case " $* " in *" --protected-mode "*) ;; *) set -- "$@" --protected-mode no ;; esac
fi
exec "$@"
