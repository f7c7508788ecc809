#!/usr/bin/env bash
# PostgreSQL 15 + pgvector 0.8.0 for the integration tests (issue 13).
#   bash .ci/postgres.sh        -- install (idempotent), start on 127.0.0.1, print the URL
#   bash .ci/postgres.sh stop   -- stop the server this script started
# Debian 12 packages PostgreSQL 15 but an older pgvector; 0.8.0 (iterative index scans, which
# the vector store needs to apply filters before k) is taken as a Debian *source* package from
# trixie and built against postgresql-server-dev-15. The server runs from its own data
# directory and port so it never touches a cluster the machine already has.
set -euo pipefail

PG_BIN=/usr/lib/postgresql/15/bin
PG_PORT=${REDSTRING_PG_PORT:-54329}
PG_DATA=${REDSTRING_PG_DATA:-/var/tmp/redstring-pg}
PG_ROLE=redstring
PG_DB=redstring
PGVECTOR_VERSION=0.8.0
URL="postgresql://${PG_ROLE}:${PG_ROLE}@127.0.0.1:${PG_PORT}/${PG_DB}"

as_postgres() { (cd / && runuser -u postgres -- "$@"); }

if [ "${1:-}" = "stop" ]; then
    if [ -f "$PG_DATA/postmaster.pid" ]; then
        as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >&2
    fi
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
need=()
for pkg in postgresql-15 postgresql-server-dev-15 build-essential dpkg-dev; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

control=$("$PG_BIN/pg_config" --sharedir)/extension/vector.control
if ! grep -q "default_version = '${PGVECTOR_VERSION}'" "$control" 2>/dev/null; then
    src_list=/etc/apt/sources.list.d/redstring-pgvector-src.sources
    if [ ! -f "$src_list" ]; then
        printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > "$src_list"
    fi
    apt-get update -qq >&2
    build=$(mktemp -d)
    (
        cd "$build"
        chown _apt "$build" 2>/dev/null || true
        apt-get source -qq "pgvector=${PGVECTOR_VERSION}-1" >&2 2>/dev/null \
            || apt-get source -qq pgvector >&2
        cd pgvector-"${PGVECTOR_VERSION}"
        make -s PG_CONFIG="$PG_BIN/pg_config" OPTFLAGS="" >&2
        make -s PG_CONFIG="$PG_BIN/pg_config" install >&2
    )
    rm -rf "$build"
    grep -q "default_version = '${PGVECTOR_VERSION}'" "$control"
fi

if [ ! -f "$PG_DATA/PG_VERSION" ]; then
    install -d -o postgres -g postgres -m 700 "$PG_DATA"
    as_postgres "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth-local=trust \
        --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
fi
if ! as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; then
    as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -w -l "$PG_DATA/server.log" \
        -o "-c listen_addresses=127.0.0.1 -p ${PG_PORT} -k /tmp -c max_connections=200 -c fsync=off -c synchronous_commit=off" \
        start >&2
fi

psql_admin() { PGOPTIONS="-c client_min_messages=warning" as_postgres "$PG_BIN/psql" -h /tmp -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
# The test role is neither superuser nor BYPASSRLS: row-level security must apply to it.
if [ -z "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = '${PG_ROLE}'")" ]; then
    psql_admin -c "CREATE ROLE ${PG_ROLE} LOGIN CREATEDB PASSWORD '${PG_ROLE}'"
fi
if [ -z "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '${PG_DB}'")" ]; then
    psql_admin -c "CREATE DATABASE ${PG_DB} OWNER ${PG_ROLE}"
fi
psql_admin -d "$PG_DB" -c "CREATE EXTENSION IF NOT EXISTS vector; ALTER EXTENSION vector UPDATE"
# New databases the tests create inherit the extension from template1.
psql_admin -d template1 -c "CREATE EXTENSION IF NOT EXISTS vector; ALTER EXTENSION vector UPDATE"
echo "$URL"
