# syntax=docker/dockerfile:1
#
# One image per Lore server, built from the repository root:
#
#   docker build --build-arg SERVICE=users      -t lore-users .
#   docker build --build-arg SERVICE=aggregator -t lore-aggregator .
#
# SERVICE: users | queries | approvals | knowledge | dens | dms | showcase | docs | aggregator
#
# The build stage packs the server and the workspace packages it needs exactly as a user gets
# them (scripts/pack.ts: `pnpm pack` per package, workspace versions and dist exports filled
# in); the install stage installs those tarballs with npm, production dependencies only, and
# bundles the server's bin where it is installed (scripts/bundle.mjs: one minified file,
# dist/bundle/main.js, whose modules still find their migrations and worker files in the
# installed dist/; esbuild is installed for that step only); the runtime stage holds /app
# (package.json, dist/, migrations/, node_modules/) and nothing else: no sources, no dev
# dependencies, no pnpm, no esbuild, no compilers.
#
# Every image listens on 8080 (LORE_PORT) on all interfaces; state lives in the databases
# (LORE_<SERVICE>_DB_URL) and NATS (NATS_URL), so containers are disposable.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
ARG PNPM_VERSION=12.4.2
RUN npm install --global --no-audit --no-fund "pnpm@${PNPM_VERSION}" \
 && npm cache clean --force
WORKDIR /src
# Dependencies from the lockfile alone first, so that this layer survives source edits.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
COPY . .
# The image builds in the pack step below, not in the install step.
RUN LORE_BUILD_ON_INSTALL=false pnpm install --frozen-lockfile --offline
ARG SERVICE=aggregator
RUN pnpm exec tsx scripts/pack.ts "${SERVICE}" --out /packs \
 && cp scripts/bundle.mjs /packs/bundle.mjs

FROM ${NODE_IMAGE} AS install
# The esbuild version of the workspace catalog (pnpm-workspace.yaml).
ARG ESBUILD_VERSION=0.28.2
WORKDIR /app
COPY --from=build /packs /packs
# The server's own tarball becomes /app; the workspace packages it depends on and every
# third-party dependency are installed into /app/node_modules.
RUN set -eu; \
    main="$(node -p "require('/packs/packed.json').main")"; \
    tar -xzf "/packs/${main}" --strip-components=1 -C /app; \
    deps="$(node -p "require('/packs/packed.json').tarballs.filter((t) => t !== '${main}').map((t) => '/packs/' + t).join(' ')")"; \
    npm install --omit=dev --no-audit --no-fund --loglevel=error ${deps}; \
    test -x dist/main.js; \
    npm install --prefix /bundler --no-audit --no-fund --loglevel=error "esbuild@${ESBUILD_VERSION}"; \
    cp /packs/bundle.mjs /bundler/bundle.mjs; \
    node /bundler/bundle.mjs /app; \
    rm -rf /bundler; \
    npm cache clean --force; \
    test -f dist/bundle/main.js

FROM ${NODE_IMAGE} AS runtime
ARG SERVICE=aggregator
LABEL org.opencontainers.image.title="lore-${SERVICE}" \
      org.opencontainers.image.description="Lore ${SERVICE} MCP server" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --system --gid 10001 lore \
 && useradd --system --uid 10001 --gid lore --home-dir /var/lib/lore --shell /usr/sbin/nologin lore \
 && mkdir -p /var/lib/lore \
 && chown lore:lore /var/lib/lore
# MALLOC_ARENA_MAX: glibc gives each thread that mallocs (V8's platform workers, libuv's pool,
# libSQL's runtime) an arena of its own, which keeps freed memory: two arenas save about 7 MiB of
# an idle all-in-one with no throughput loss measured (BENCHMARKS.md, "Starting small").
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    LORE_HOST=0.0.0.0 \
    LORE_ALLOWED_HOSTS=localhost,127.0.0.1 \
    LORE_PORT=8080 \
    LORE_DATA_DIR=/var/lib/lore
WORKDIR /app
# Owned by root and read-only to the server's user.
COPY --from=install /app /app
USER 10001:10001
EXPOSE 8080
# No curl in the slim image: node asks /healthz itself.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.LORE_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The bundle: users alone idles at about 74 MiB instead of 84 from dist/main.js, and uses about
# 0.6x the CPU until ready (BENCHMARKS.md, "Starting small"). dist/main.js stays beside it and
# runs the same server.
CMD ["node", "--optimize-for-size", "dist/bundle/main.js"]
