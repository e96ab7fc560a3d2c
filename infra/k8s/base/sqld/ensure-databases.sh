#!/bin/sh
# Runs beside sqld in its pod: makes sure sqld has one namespace (one database) per name given
# as an argument, then marks the pod ready and stays up. Idempotent: a namespace that exists
# is left as it is. The admin API listens on the pod's loopback only. SQLD_ADMIN_URL and
# READY_FILE change where it looks and what it touches (the kit's sqld test runs it so).
set -eu
admin="${SQLD_ADMIN_URL:-http://127.0.0.1:9090}"
ready="${READY_FILE:-/tmp/ready}"
trap 'exit 0' TERM INT
until curl -fsS -o /dev/null "$admin/"; do sleep 1; done
for ns in "$@"; do
  if curl -fsS -o /dev/null -X POST -H 'content-type: application/json' -d '{}' "$admin/v1/namespaces/$ns/create"; then
    echo "created database $ns"
  elif curl -fsS -o /dev/null "$admin/v1/namespaces/$ns/config"; then
    echo "database $ns exists"
  else
    echo "could not create database $ns" >&2
    exit 1
  fi
done
touch "$ready"
echo "databases ready: $*"
while :; do
  sleep 3600 &
  wait $!
done
